/** Why requests got a 503: one line per reason, then how many more met it within the interval. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError } from '../../src/errors.js';
import { FailureLog } from '../../src/http/failure-log.js';
import { createLogger } from '../../src/logger.js';
import { startTestServer } from '../helpers/server.js';

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const shown = () => lines.map(({ msg, reqId, reason, more }) => ({ msg, reqId, reason, more }));
  return { logger, shown };
}

test('an outage logs its reason once, then the count of the requests it refused meanwhile', async () => {
  const { logger, shown } = recordingLogger();
  const failures = new FailureLog(logger, 100);
  for (let i = 1; i <= 5; i++) failures.warn(`r${i}`, 'SQLite write failed (SQLITE_FULL): database or disk is full');
  failures.warn('r6', 'connect ECONNREFUSED');
  assert.deepEqual(shown(), [
    { msg: 'request failed', reqId: 'r1', reason: 'SQLite write failed (SQLITE_FULL): database or disk is full', more: undefined },
    { msg: 'request failed', reqId: 'r6', reason: 'connect ECONNREFUSED', more: undefined },
  ]);
  await sleep(200);
  assert.deepEqual(shown().slice(2), [{ msg: 'more requests failed for the same reason', reqId: undefined, reason: 'SQLite write failed (SQLITE_FULL): database or disk is full', more: 4 }]);
  failures.warn('r7', 'connect ECONNREFUSED');
  assert.equal(shown().at(-1)?.reqId, 'r7', 'a new interval starts with a line of its own');
});

test('flush logs the counts an interval has not reported yet', () => {
  const { logger, shown } = recordingLogger();
  const failures = new FailureLog(logger, 60_000);
  for (let i = 1; i <= 3; i++) failures.warn(`r${i}`, 'the database does not answer');
  failures.flush();
  assert.deepEqual(shown().at(-1), { msg: 'more requests failed for the same reason', reqId: undefined, reason: 'the database does not answer', more: 2 });
  failures.flush();
  assert.equal(shown().length, 2, 'each count is logged once');
});

test('the server logs one line for many requests its store refuses alike, and each request its access line', async (t) => {
  const { logger, shown } = recordingLogger();
  const server = await startTestServer(t, 'sqlite', {}, logger);
  const user = await server.user();
  server.running.store.listPlants = () => {
    throw new StoreUnavailableError('the disk is full');
  };
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push((await user.request('/plants?limit=5')).status);
  assert.deepEqual(statuses, [503, 503, 503, 503, 503]);
  assert.equal(shown().filter((line) => line.msg === 'request failed').length, 1);
  assert.equal(shown().filter((line) => line.msg === 'request').length >= 5, true);
});
