/** The stdout logger: access lines in batches, but an error is out before anything can kill the process. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { accessLog, createLogger, LineBatches } from '../../src/logger.js';

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

/** Runs `body` in a child whose stdout is a real pipe; `onStdout` decides what the parent does with it. */
function runWithPipe(body: string, onStdout: (stdout: Readable) => void): Promise<{ code: number | null; stderr: string }> {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst logger = createLogger('info');\n${body}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 });
  onStdout(child.stdout);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

test('an error logged to a closed stdout (EPIPE) does not crash the process', async () => {
  const result = await runWithPipe(
    "setTimeout(() => { logger.error('nobody reads this'); logger.info('nor this'); process.stderr.write('still alive'); }, 300);",
    (stdout) => stdout.destroy(),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /still alive/);
});

test('a log reader that stops reading does not freeze the event loop', async () => {
  // 40,000 lines (about 4 MB) into a pipe nobody reads, while a 10 ms timer counts its turns.
  const result = await runWithPipe(
    `let ticks = 0;
const timer = setInterval(() => ticks++, 10);
let n = 0;
const burst = () => { for (let i = 0; i < 1000; i++) logger.info({ n: n++ }, 'a line nobody reads'); if (n < 40000) setImmediate(burst); };
burst();
setTimeout(() => { clearInterval(timer); process.stderr.write('ticks ' + ticks); process.exit(0); }, 1500);`,
    (stdout) => stdout.pause(),
  );
  assert.equal(result.code, 0, result.stderr);
  const ticks = Number(/ticks (\d+)/.exec(result.stderr)?.[1]);
  assert.ok(ticks >= 50, `the timer ran ${ticks} times in 1.5 s`);
});

test('info lines are buffered: killed at once, the process leaves them unwritten', () => {
  // The other side of the trade: ordinary lines wait for a batch (8 KB or 250 ms).
  assert.equal(runAndKill("logger.info('buffered');"), '');
});

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

test('stdout to a file takes 64 KB batches, a pipe 4 KB ones', () => {
  // 300 lines of about 80 bytes: several pipe batches, one unfinished file batch.
  const body = "for (let n = 0; n < 300; n++) logger.info({ n }, 'line');";
  const file = join(mkdtempSync(join(tmpdir(), 'plantstore-log-')), 'out.log');
  const fd = openSync(file, 'w');
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst logger = createLogger('info');\n${body}\nprocess.kill(process.pid, 'SIGKILL');`;
  spawnSync(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', fd, 'pipe'], timeout: 10_000 });
  closeSync(fd);
  assert.equal(readFileSync(file, 'utf8'), '', 'nothing written before the 64 KB batch fills');
  const piped = runAndKill(body).trim().split('\n');
  assert.ok(piped.length >= 200 && piped.length < 300, `${piped.length} lines out in 4 KB batches`);
});

describe('LineBatches', () => {

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

  test('once a full pipe has made an error line wait its second, later error lines do not wait', () => {
    const stdout = fakeStdout(() => 'EAGAIN');
    const batches = new LineBatches(stdout.writeSome);
    batches.write('{"first":1}\n');
    let started = performance.now();
    batches.flushSync();
    assert.ok(performance.now() - started >= 900, 'the first waits up to a second');
    batches.write('{"second":2}\n');
    started = performance.now();
    batches.flushSync();
    assert.ok(performance.now() - started < 100, 'a stalled pipe is not waited for again');
  });
});


describe('accessLog', () => {
  type Line = Record<string, unknown>;
  const withoutTime = ({ time, ...rest }: Line): Line => {
    assert.equal(typeof time, 'number');
    return rest;
  };
  const FIELDS = ['req-1', 'GET', '/plants/{id}', 404, 0.3] as const;

  function captured(level: 'info' | 'warn') {
    const stdout = fakeStdout();
    const batches = new LineBatches(stdout.writeSome);
    const logger = createLogger(level, batches);
    const lines = () => {
      batches.flushSync();
      return stdout.text().trim().split('\n').filter(Boolean).map((line: string) => JSON.parse(line) as Line);
    };
    return { logger, lines };
  }

  test('writes the line pino would write for the same fields, in the same order', () => {
    const { logger, lines } = captured('info');
    accessLog(logger)(...FIELDS);
    logger.info({ reqId: 'req-1', method: 'GET', route: '/plants/{id}', status: 404, ms: 0.3 }, 'request');
    const [ours, pinos] = lines();
    assert.ok(ours !== undefined && pinos !== undefined);
    assert.deepEqual(Object.keys(ours), Object.keys(pinos));
    assert.deepEqual(withoutTime(ours), withoutTime(pinos));
    assert.equal(ours.pid, process.pid);
  });

  test('follows the logger level, also when it changes later', () => {
    const { logger, lines } = captured('warn');
    const log = accessLog(logger);
    log(...FIELDS);
    assert.deepEqual(lines(), []);
    logger.level = 'info';
    log(...FIELDS);
    assert.equal(lines().length, 1);
  });

  test('access lines after an error line are batched again, not flushed one by one', () => {
    const stdout = fakeStdout();
    const batches = new LineBatches(stdout.writeSome);
    const logger = createLogger('info', batches);
    logger.error('boom');
    const writes = stdout.writes.length;
    for (let i = 0; i < 10; i++) accessLog(logger)(...FIELDS);
    assert.equal(stdout.writes.length, writes, 'the ten lines wait for their batch');
  });

  test('with another destination it is pino info()', () => {
    const out: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => out.push(line) });
    accessLog(logger)(...FIELDS);
    const line = JSON.parse(out[0] ?? '{}') as Line;
    assert.deepEqual([line.msg, line.reqId, line.status], ['request', 'req-1', 404]);
  });
});
