/** Ownership: every plant belongs to one owner; ids are unique per owner; tokens of one user share plants. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { issueToken } from '../../src/auth/api-tokens.js';
import { authorizedFetch, startTestServer, storeKinds, type TestUser } from '../helpers/server.js';

async function create(user: TestUser, body: string): Promise<Response> {
  return user.request('/plants', { method: 'POST', json: body });
}

for (const kind of storeKinds()) {
  describe(`ownership on ${kind}`, () => {
    test('another owner’s plant is absent from GET', async (t) => {
      const server = await startTestServer(t, kind);
      const [alice, bob] = [await server.user(), await server.user()];
      assert.equal((await create(alice, '{"id":7,"name":"Alice fern"}')).status, 200);
      const response = await bob.request('/plants');
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), []);
      assert.equal((await bob.request('/plants?limit=1')).headers.get('link'), null);
    });

    test('two owners may each have a plant 7, and neither disturbs the other', async (t) => {
      const server = await startTestServer(t, kind);
      const [alice, bob] = [await server.user(), await server.user()];
      assert.equal((await create(alice, '{"id":7,"name":"Alice fern"}')).status, 200);
      const bobs = await create(bob, '{"id":7,"name":"Bob cactus","tag":"desert"}');
      assert.equal(bobs.status, 200, 'another owner’s id does not conflict');
      assert.deepEqual(await bobs.json(), { name: 'Bob cactus', tag: 'desert' });
      assert.deepEqual(await (await alice.request('/plants')).json(), [{ name: 'Alice fern' }]);
      assert.deepEqual(await (await bob.request('/plants')).json(), [{ name: 'Bob cactus', tag: 'desert' }]);
      assert.equal((await bob.request('/plants/7', { method: 'DELETE' })).status, 204);
      assert.deepEqual(await (await alice.request('/plants')).json(), [{ name: 'Alice fern' }]);
    });

    test('another owner’s plant 7 answers exactly like an absent one on DELETE (404, same body)', async (t) => {
      const server = await startTestServer(t, kind);
      const [alice, bob] = [await server.user(), await server.user()];
      await create(alice, '{"id":7,"name":"Alice fern"}');
      const other = await bob.request('/plants/7', { method: 'DELETE' });
      const absent = await bob.request('/plants/8', { method: 'DELETE' });
      assert.equal(other.status, 404);
      assert.equal(absent.status, 404);
      assert.equal(await other.text(), await absent.text());
    });

    test('all tokens of one user share that user’s plants', async (t) => {
      const server = await startTestServer(t, kind);
      const alice = await server.user();
      const second = await issueToken(server.running.store, { user: alice.name });
      const readOnly = await issueToken(server.running.store, { user: alice.name, readOnly: true });
      assert.ok(second !== undefined && readOnly !== undefined);
      assert.equal((await create(alice, '{"id":7,"name":"Fern"}')).status, 200);
      const viaSecond = await authorizedFetch(`${server.url}/plants`, second.token);
      assert.deepEqual(await viaSecond.json(), [{ name: 'Fern' }]);
      const viaReadOnly = await authorizedFetch(`${server.url}/plants`, readOnly.token);
      assert.deepEqual(await viaReadOnly.json(), [{ name: 'Fern' }]);
      const retry = await authorizedFetch(`${server.url}/plants`, second.token, { method: 'POST', json: '{"id":7,"name":"Fern"}' });
      assert.equal(retry.status, 200, 'the same plant through another token is a retry');
      assert.equal((await authorizedFetch(`${server.url}/plants/7`, second.token, { method: 'DELETE' })).status, 204);
      assert.deepEqual(await (await alice.request('/plants')).json(), []);
    });
  });
}
