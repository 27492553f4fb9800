import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestServer, storeKinds } from '../helpers/server.js';

for (const kind of storeKinds()) {
  describe(`plants round trip on ${kind}`, () => {
    test('POST then GET then DELETE keeps an id above 2^53 exact', async (t) => {
      const server = await startTestServer(t, kind);
      const alice = await server.user();
      const created = await alice.request('/plants', { method: 'POST', json: '{"id":9007199254740993,"name":"Fern"}' });
      assert.equal(created.status, 200);
      assert.equal(created.headers.get('location'), '/plants/9007199254740993');
      assert.deepEqual(await created.json(), { name: 'Fern' });
      const deleted = await alice.request('/plants/9007199254740993', { method: 'DELETE' });
      assert.equal(deleted.status, 204);
      const missing = await alice.request('/plants/9007199254740992', { method: 'DELETE' });
      assert.equal(missing.status, 404);
    });
  });
}
