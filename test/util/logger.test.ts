/** The stdout logger: pino writing lines in batches; a stdout that fails or stalls never stops the service. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { Readable } from 'node:stream';
import { test } from 'node:test';

const LOGGER = new URL('../../src/logger.js', import.meta.url).href;

function runAndEnd(body: string, end: string): { stdout: string; signal: NodeJS.Signals | null } {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst logger = createLogger('info');\n${body}\n${end}`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
  return { stdout: result.stdout, signal: result.signal };
}

test('lines are written in batches of at least 4 KB, and whatever is held at exit', () => {
  const body = "for (let n = 0; n < 300; n++) logger.info({ n }, 'line');";
  const killed = runAndEnd(body, "process.kill(process.pid, 'SIGKILL');");
  assert.equal(killed.signal, 'SIGKILL');
  const written = killed.stdout.trim().split('\n').filter((line) => line !== '');
  assert.ok(written.length < 300, `a kill -9 loses the batch not yet written (${written.length} of 300 out)`);
  const exited = runAndEnd(body, 'process.exit(0);');
  const lines = exited.stdout.trim().split('\n').map((line) => JSON.parse(line) as { n: number });
  assert.deepEqual(lines.map((line) => line.n), Array.from({ length: 300 }, (_, n) => n), 'all of them, in order, at exit');

  const under4k = "for (let n = 0; n < 30; n++) logger.info({ n }, 'line');";
  const held = runAndEnd(under4k, 'process.exit(0);').stdout;
  assert.equal(held.trim().split('\n').length, 30);
  assert.ok(Buffer.byteLength(held) < 4096, `30 lines are ${Buffer.byteLength(held)} bytes`);
  assert.equal(runAndEnd(under4k, "process.kill(process.pid, 'SIGKILL');").stdout, '', 'less than 4 KB is not written before exit');
});

test('the Authorization header is redacted wherever headers are logged', () => {
  const { stdout } = runAndEnd("logger.info({ req: { headers: { authorization: 'Bearer pst_secret' } }, headers: { authorization: 'Bearer pst_secret' } }, 'x');", 'process.exit(0);');
  assert.doesNotMatch(stdout, /pst_secret/);
  assert.match(stdout, /\[redacted\]/);
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
  // 40,000 lines (about 4 MB) into a pipe nobody reads; a write that waited for the reader would
  // never let the burst finish. After it, a 10 ms timer must go on running through at least three
  // of the logger's 250 ms flushes into the full pipe: until it has run 20 times, or 10 s are up.
  // A loaded machine may run it late; a frozen loop never runs it, nor ends the wait.
  const result = await runWithPipe(
    `let ticks = 0;
const timer = setInterval(() => ticks++, 10);
let n = 0;
const afterBurst = () => {
  const before = ticks;
  const started = Date.now();
  const watch = setInterval(() => {
    const ran = ticks - before;
    const waited = Date.now() - started;
    if ((ran < 20 || waited < 750) && waited < 10000) return;
    clearInterval(watch);
    clearInterval(timer);
    process.stderr.write('ticks ' + ran + ' in ' + waited + ' ms');
    process.exit(0);
  }, 50);
};
const burst = () => { for (let i = 0; i < 1000; i++) logger.info({ n: n++ }, 'a line nobody reads'); if (n < 40000) setImmediate(burst); else afterBurst(); };
burst();`,
    (stdout) => stdout.pause(),
  );
  assert.equal(result.code, 0, result.stderr);
  const [, ticks, ms] = /ticks (\d+) in (\d+) ms/.exec(result.stderr) ?? [];
  assert.ok(Number(ticks) >= 20, `the timer ran ${ticks} times in the ${ms} ms after the burst`);
});

test('lines logged while stdout is full are written, in order, once the reader reads again', async () => {
  // 3,000 lines (about 200 KB, more than a pipe holds) while the parent does not read.
  let out = '';
  const result = await runWithPipe(
    `for (let n = 0; n < 3000; n++) logger.info({ n }, 'held while the pipe is full');
setTimeout(() => process.exit(0), 2500);`,
    (stdout) => {
      stdout.pause();
      stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      setTimeout(() => stdout.resume(), 500);
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = out.trim().split('\n').map((line) => JSON.parse(line) as { n: number });
  assert.deepEqual(lines.map((line) => line.n), Array.from({ length: 3000 }, (_, n) => n));
});

test('a batch held since the pipe was full is written whole and in order when the process exits', async () => {
  // About 100 KB of lines into a pipe that holds 64 KB: the rest is held after a write finds it
  // full. The parent then reads what the pipe holds and tells the child to exit at once.
  let out = '';
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};
const logger = createLogger('info');
for (let n = 0; n < 1000; n++) logger.info({ n, pad: 'x'.repeat(40) }, 'held at exit');
process.stdin.once('data', () => process.exit(0));
process.stderr.write('logged');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'], timeout: 15_000 });
  child.stdout.pause();
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length >= 60_000 && child.stdin.writable) child.stdin.end('exit');
  });
  child.stderr.once('data', () => child.stdout.resume());
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  const lines = out.trim().split('\n').map((line) => JSON.parse(line) as { n: number });
  assert.deepEqual(lines.map((line) => line.n), Array.from({ length: 1000 }, (_, n) => n));
});
