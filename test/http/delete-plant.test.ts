/** DELETE /plants/{id}: 204, 404 for every kind of absent plant, 400 for every bad id spelling. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import { startTestServer, storeKinds, type TestUser } from '../helpers/server.js';

async function create(user: TestUser, id: string, name = 'Fern'): Promise<void> {
  const response = await user.request('/plants', { method: 'POST', json: `{"id":${id},"name":"${name}"}` });
  assert.equal(response.status, 200);
}

const del = (user: TestUser, id: string) => user.request(`/plants/${id}`, { method: 'DELETE' });

for (const kind of storeKinds()) {
  describe(`DELETE /plants/{id} on ${kind}`, () => {
    test('the caller owns plant id: 204, no body, and the plant is gone', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '7');
      await create(user, '8', 'Ivy');
      const response = await del(user, '7');
      assert.equal(response.status, 204);
      assert.equal(await response.text(), '');
      assert.deepEqual(await (await user.request('/plants')).json(), [{ name: 'Ivy' }]);
    });

    test('int64 extremes and ids above 2^53 are deleted exactly', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const id of ['9223372036854775807', '-9223372036854775808', '9007199254740993']) await create(user, id);
      assert.equal((await del(user, '9007199254740992')).status, 404);
      for (const id of ['9223372036854775807', '-9223372036854775808', '9007199254740993']) assert.equal((await del(user, id)).status, 204, id);
    });

    test('leading zeros and -0 are the same id (007 is 7, -0 is 0)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '7');
      await create(user, '0');
      assert.equal((await del(user, '007')).status, 204);
      assert.equal((await del(user, '-0')).status, 204);
    });

    test('no such plant: never existed → 404 Error', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await assertError(await del(user, '7'), 404);
    });

    test('no such plant: already deleted → 404 Error', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '7');
      assert.equal((await del(user, '7')).status, 204);
      await assertError(await del(user, '7'), 404);
    });

    test('no such plant: another owner’s → 404 Error, and the owner keeps it', async (t) => {
      const server = await startTestServer(t, kind);
      const [alice, bob] = [await server.user(), await server.user()];
      await create(alice, '7');
      const notMine = await del(bob, '7');
      const absent = await del(bob, '8');
      assert.equal(notMine.status, 404);
      assert.deepEqual(await notMine.json(), await absent.json(), 'answers exactly like an absent plant');
      assert.deepEqual(await (await alice.request('/plants')).json(), [{ name: 'Fern' }]);
    });

    test('id not a decimal int64: text, fraction, out of range → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const id of ['abc', '1.5', '1.0', '9223372036854775808', '-9223372036854775809', '1e2', '0x10', '%2B7', '+7', '%207', '7%20', '%D9%A7', '-', '--1', '%', '%zz']) {
        await assertError(await del(user, id), 400);
      }
    });

    test('DELETE /plants/ (empty id) → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await assertError(await del(user, ''), 400);
    });

    test('DELETE carrying Content-Type: application/json and no body is served normally', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '7');
      const response = await user.request('/plants/7', { method: 'DELETE', headers: { 'content-type': 'application/json' } });
      assert.equal(response.status, 204);
    });
  });
}
