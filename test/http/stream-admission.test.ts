import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError, StoreUnavailableError } from '../../src/errors.js';
import { StreamAdmission } from '../../src/http/stream-admission.js';
import { StreamShare, maxStreamConnections } from '../../src/store/postgres/stream-share.js';
import type { PlantStream } from '../../src/store/store.js';
import { startTestServer } from '../helpers/server.js';

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return error;
  }
  assert.fail('expected a refusal');
}

describe('stream admission', () => {
  test('refuses past the owner limit with 429 and past the process limit with 503, each with Retry-After', () => {
    const admission = new StreamAdmission({ perOwner: 2, perProcess: 3 });
    const a1 = admission.admit('a');
    admission.admit('a');
    const perOwner = refusal(() => admission.admit('a'));
    assert.equal(perOwner.status, 429);
    assert.match(perOwner.headers['retry-after'] ?? '', /^[1-9]/);
    admission.admit('b');
    const perProcess = refusal(() => admission.admit('c'));
    assert.equal(perProcess.status, 503);
    assert.match(perProcess.headers['retry-after'] ?? '', /^[1-9]/);
    a1.release();
    a1.release(); // a second release frees nothing more
    assert.equal(admission.open, 2);
    admission.admit('c');
    assert.equal(refusal(() => admission.admit('d')).status, 503);
  });

  test("the owner's share goes back before the process's: an owner may stream again while its last snapshot closes", () => {
    const admission = new StreamAdmission({ perOwner: 1, perProcess: 2 });
    const first = admission.admit('a');
    assert.equal(refusal(() => admission.admit('a')).status, 429);
    first.releaseOwner();
    first.releaseOwner();
    const second = admission.admit('a');
    assert.equal(admission.open, 2, 'the first still holds its snapshot');
    assert.equal(refusal(() => admission.admit('b')).status, 503);
    first.release();
    assert.equal(admission.open, 1);
    assert.equal(refusal(() => admission.admit('a')).status, 429, "the first's release frees no second owner share");
    second.release();
    assert.equal(admission.open, 0);
  });

  test('an owner that gives back one of its streams holds the rest: one more is admitted, not two', () => {
    const admission = new StreamAdmission({ perOwner: 2, perProcess: 10 });
    const first = admission.admit('a');
    admission.admit('a');
    first.release();
    admission.admit('a');
    assert.equal(refusal(() => admission.admit('a')).status, 429);
  });
});

describe('the pool share of streams', () => {
  test('keeps a quarter of the pool, at least one connection, for everything else', () => {
    assert.deepEqual([2, 3, 4, 5, 10, 20, 100].map(maxStreamConnections), [1, 2, 3, 3, 7, 15, 75]);
  });

  const fakeStream = (): PlantStream => ({ nextAfter: undefined, next: () => [], close: () => undefined });

  test('a stream past the share waits for a slot, and gets one when another closes', async () => {
    const share = new StreamShare(1, 5_000);
    const first = await share.open(async () => fakeStream());
    let opened = false;
    const second = share.open(async () => fakeStream()).then((stream) => ((opened = true), stream));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(opened, false, 'waits while the share is taken');
    await first.close();
    await first.close(); // closing twice frees one slot only
    const secondStream = await second;
    let thirdOpened = false;
    const third = share.open(async () => fakeStream()).then((stream) => ((thirdOpened = true), stream));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(thirdOpened, false, 'the second close of the first stream freed no slot');
    await secondStream.close();
    await (await third).close();
  });

  test('a stream that waits too long is refused with 503 and Retry-After; a failed open frees its slot', async () => {
    const share = new StreamShare(1, 50);
    await assert.rejects(share.open(async () => Promise.reject(new Error('database down'))), /database down/);
    const held = await share.open(async () => fakeStream());
    await assert.rejects(share.open(async () => fakeStream()), (error: unknown) => error instanceof ApiError && error.status === 503 && error.headers['retry-after'] === '1');
    await held.close();
    await (await share.open(async () => fakeStream())).close();
  });
});

test('a stream whose open fails gives its admission back: the owner gets 503 again, never 429', async (t) => {
  const server = await startTestServer(t, 'sqlite', { streamsPerOwner: '1' });
  const user = await server.user();
  server.running.store.streamPlants = () => Promise.reject(new StoreUnavailableError('no snapshot connection'));
  for (let i = 0; i < 3; i++) {
    const response = await user.request('/plants');
    await response.arrayBuffer();
    assert.equal(response.status, 503, `stream ${i + 1}`);
  }
});

test('a page of limit 1000 is read at once, not streamed: it is served while the owner\'s streams are all taken', async (t) => {
  const server = await startTestServer(t, 'sqlite', { streamsPerOwner: '1' });
  const user = await server.user();
  let giveUp: (error: Error) => void = () => {};
  server.running.store.streamPlants = () => new Promise((_, reject) => (giveUp = reject));
  const holding = user.request('/plants');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const page = await user.request('/plants?limit=1000');
  await page.arrayBuffer();
  assert.equal(page.status, 200);
  const streamed = await user.request('/plants?limit=1001');
  await streamed.arrayBuffer();
  assert.equal(streamed.status, 429);
  giveUp(new StoreUnavailableError('test over'));
  assert.equal((await holding).status, 503);
});
