/** The stdout logger: access lines in batches, but an error is out before anything can kill the process. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { LineBatches } from '../../src/logger.js';

const LOGGER = new URL('../../src/logger.js', import.meta.url).href;

function runAndKill(body: string): string {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst logger = createLogger('info');\n${body}\nprocess.kill(process.pid, 'SIGKILL');`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(result.signal, 'SIGKILL');
  return result.stdout;
}

test('an error line, and every line before it, is written in order before the process can die', () => {
  // 200 info lines fill several 4 KB batches before the error.
  const out = runAndKill("for (let n = 0; n < 200; n++) logger.info({ n }, 'before');\nlogger.error({ n: 200 }, 'the cause of death');");
  const lines = out.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; n: number; level: number });
  assert.deepEqual(lines.map((line) => line.n), Array.from({ length: 201 }, (_, n) => n));
  assert.deepEqual(lines.at(-1)?.msg, 'the cause of death');
});

test('an error logged to a closed stdout does not crash the process', () => {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst logger = createLogger('info');\nlogger.error('nobody reads this');\nprocess.stderr.write('still alive');`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] });
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stderr, /still alive/);
});

test('info lines are buffered: killed at once, the process leaves them unwritten', () => {
  // The other side of the trade: ordinary lines wait for a batch (8 KB or 250 ms).
  assert.equal(runAndKill("logger.info('buffered');"), '');
});

describe('LineBatches', () => {
  /** A stdout that records what it took; `refuse` decides, per call, to throw an errno error instead. */
  function fakeStdout(refuse: (call: number) => string | undefined = () => undefined, takeAtMost = Infinity) {
    const chunks: Buffer[] = [];
    let calls = 0;
    const writeSome = (data: Buffer): number => {
      const code = refuse(calls++);
      if (code !== undefined) throw Object.assign(new Error(code), { code });
      const taken = data.subarray(0, Math.min(data.length, takeAtMost));
      chunks.push(Buffer.from(taken));
      return taken.length;
    };
    return {
      writeSome,
      /** Each write as text (whole writes only: a partial one may end inside a character). */
      get writes() {
        return chunks.map((chunk) => chunk.toString());
      },
      text: () => Buffer.concat(chunks).toString(),
    };
  }

  const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i},"msg":"${'é'.repeat(i % 40)}"}\n`);

  test('batches of at most 4096 bytes, whole lines in order, so a shared pipe never splits one', () => {
    const stdout = fakeStdout();
    const batches = new LineBatches(stdout.writeSome);
    for (const line of lines) batches.write(line);
    batches.flushSync();
    assert.ok(stdout.writes.length > 1);
    for (const write of stdout.writes) {
      assert.ok(Buffer.byteLength(write) <= 4096, `a write of ${Buffer.byteLength(write)} bytes`);
      assert.ok(write.endsWith('\n'));
    }
    assert.equal(stdout.writes.join(''), lines.join(''));
  });

  test('lines held back are written within 250 ms; flushSync writes them at once', async () => {
    const stdout = fakeStdout();
    const batches = new LineBatches(stdout.writeSome);
    batches.write('{"a":1}\n');
    assert.deepEqual(stdout.writes, []);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(stdout.writes, ['{"a":1}\n']);
    batches.write('{"b":2}\n');
    batches.flushSync();
    assert.deepEqual(stdout.writes, ['{"a":1}\n', '{"b":2}\n']);
  });

  test('a full pipe (EAGAIN) and partial writes delay lines but lose and reorder none', () => {
    const stdout = fakeStdout((call) => (call % 3 === 0 ? 'EAGAIN' : undefined), 1000);
    const batches = new LineBatches(stdout.writeSome);
    for (const line of lines) batches.write(line);
    batches.flushSync();
    assert.equal(stdout.text(), lines.join(''));
  });

  test('a closed stdout (EPIPE) ends logging quietly: nothing throws, later lines are dropped', () => {
    const stdout = fakeStdout(() => 'EPIPE');
    const batches = new LineBatches(stdout.writeSome);
    assert.doesNotThrow(() => {
      for (const line of lines) batches.write(line);
      batches.flushSync();
      batches.write('{"after":1}\n');
      batches.flushSync();
    });
    assert.deepEqual(stdout.writes, []);
  });
});
