/** EndOfTurn: the steps run once per turn, in their order, and held responses go out whatever failed before. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EndOfTurn } from '../../src/util/end-of-turn.js';

test('the steps run once at the end of the turn, however often asked: commit, end reads, send', async () => {
  const endOfTurn = new EndOfTurn();
  const ran: string[] = [];
  endOfTurn.set('sendResponses', () => ran.push('send'));
  endOfTurn.set('endReads', () => ran.push('end reads'));
  endOfTurn.set('sendWrites', () => ran.push('commit'));
  endOfTurn.schedule();
  endOfTurn.schedule();
  assert.deepEqual(ran, [], 'nothing runs within the turn');
  await nextTurn();
  assert.deepEqual(ran, ['commit', 'end reads', 'send']);
  endOfTurn.schedule();
  await nextTurn();
  assert.equal(ran.length, 6, 'asked again in a later turn, they run again');
});

test('a step that throws does not keep the held responses from being sent', () => {
  const module = new URL('../../src/util/end-of-turn.js', import.meta.url).href;
  const script = `import { EndOfTurn } from ${JSON.stringify(module)};
const endOfTurn = new EndOfTurn();
endOfTurn.set('endReads', () => { throw new Error('read transaction failed'); });
endOfTurn.set('sendResponses', () => process.stdout.write('sent'));
endOfTurn.schedule();`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(result.stdout, 'sent');
  assert.match(result.stderr, /read transaction failed/, 'and the failure still surfaces');
  assert.notEqual(result.status, 0);
});

test('what the writer answer step starts runs before the responses are sent, in the same turn', async () => {
  const endOfTurn = new EndOfTurn();
  const ran: string[] = [];
  endOfTurn.set('takeWriteAnswer', () => void Promise.resolve().then(() => ran.push('answered write responds')));
  endOfTurn.set('sendResponses', () => ran.push('send'));
  endOfTurn.schedule();
  setImmediate(() => ran.push('next immediate'));
  await nextTurn();
  assert.deepEqual(ran.slice(0, 2), ['answered write responds', 'send']);
});

test('a start asked for after the first immediate ran comes at the next end of a turn', async () => {
  const endOfTurn = new EndOfTurn();
  const ran: string[] = [];
  let asks = 2;
  endOfTurn.set('startWaitingRequests', () => {
    ran.push('start');
    if (--asks > 0) void Promise.resolve().then(endOfTurn.scheduleStart); // as a response sent there lets the next request's turn come
  });
  endOfTurn.set('sendResponses', () => ran.push('send'));
  endOfTurn.scheduleStart();
  await nextTurn();
  await nextTurn();
  await nextTurn();
  assert.deepEqual(ran, ['start', 'send', 'start', 'send']);
});

test('a step given twice is refused: the second owner would silently take the first one’s place', () => {
  const endOfTurn = new EndOfTurn();
  endOfTurn.set('sendWrites', () => {});
  assert.throws(() => endOfTurn.set('sendWrites', () => {}), /sendWrites is given twice/);
});
