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

test('an error line, and every line before it, is written before the process can die', () => {
  const out = runAndKill("logger.info({ n: 1 }, 'before');\nlogger.error({ n: 2 }, 'the cause of death');");
  const lines = out.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; level: number });
  assert.deepEqual(lines.map((line) => [line.msg, line.level]), [['before', 30], ['the cause of death', 50]]);
});

test('info lines are buffered: killed at once, the process leaves them unwritten', () => {
  // The other side of the trade: ordinary lines wait for a batch (8 KB or 250 ms).
  assert.equal(runAndKill("logger.info('buffered');"), '');
});

describe('LineBatches', () => {
  function recordingSink() {
    const writes: string[] = [];
    let syncFlushes = 0;
    return {
      writes,
      syncFlushes: () => syncFlushes,
      sink: {
        write: (data: string) => writes.push(data),
        flush: (done?: () => void) => done?.(),
        flushSync: () => void syncFlushes++,
        writeSync: (data: string) => void writes.push(`sync:${data}`),
      },
    };
  }

  test('batches of at most 4096 bytes, whole lines in order, so a shared pipe never splits one', () => {
    const { writes, sink } = recordingSink();
    const batches = new LineBatches(sink);
    const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i},"msg":"${'é'.repeat(i % 40)}"}\n`);
    for (const line of lines) batches.write(line);
    batches.flushSync();
    writes.push(writes.pop()?.replace(/^sync:/, '') ?? '');
    assert.ok(writes.length > 1);
    for (const write of writes) {
      assert.ok(Buffer.byteLength(write) <= 4096, `a write of ${Buffer.byteLength(write)} bytes`);
      assert.ok(write.endsWith('\n'));
    }
    assert.equal(writes.join(''), lines.join(''));
  });

  test('lines held back are handed on within 250 ms, and flushSync hands on and syncs at once', async () => {
    const { writes, sink, syncFlushes } = recordingSink();
    const batches = new LineBatches(sink);
    batches.write('{"a":1}\n');
    assert.deepEqual(writes, []);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(writes, ['{"a":1}\n']);
    batches.write('{"b":2}\n');
    batches.flushSync();
    assert.deepEqual(writes, ['{"a":1}\n', 'sync:{"b":2}\n'], 'what is held goes out synchronously');
    assert.equal(syncFlushes(), 1);
  });
});
