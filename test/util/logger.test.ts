/** The stdout logger: buffered access lines, but an error is out before anything can kill the process. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

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
