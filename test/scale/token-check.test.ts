/**
 * A token seen before is checked by the store with the request's own read, not looked up
 * again: revocation and expiry must still count at the next request on every instance, for
 * every kind of request, and a revoked token is answered 401 before any 400 or 403.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test, type TestContext } from 'node:test';
import { issueToken } from '../../src/auth/api-tokens.js';
import { authorizedFetch, startTestServer, storeKinds, uniqueName, type StoreKind } from '../helpers/server.js';

/** Two instances on one database: for SQLite, two servers on one file. */
async function twoInstances(t: TestContext, kind: StoreKind) {
  if (kind === 'postgres') {
    const a = await startTestServer(t, 'postgres');
    const b = await startTestServer(t, 'postgres');
    return { a, b, store: a.running.store };
  }
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-test-'));
  const databaseUrl = `sqlite:${join(dir, 'plantstore.db')}`;
  const a = await startTestServer(t, 'sqlite', { databaseUrl });
  const b = await startTestServer(t, 'sqlite', { databaseUrl });
  t.after(() => rmSync(dir, { recursive: true, force: true })); // after both servers have closed
  return { a, b, store: a.running.store };
}

type Call = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

/** Every kind of request, each once, on one instance; their statuses. */
async function everyRequest(call: Call, id: number): Promise<number[]> {
  const statuses: number[] = [];
  for (const [path, init] of [
    ['/plants?limit=10', {}],
    ['/plants?limit=10&after=0', {}],
    [`/plants/${id}`, {}],
    ['/plants', { method: 'POST', json: { id: id + 1, name: 'Fern' } }],
    [`/plants/${id + 1}`, { method: 'DELETE' }],
  ] as const) {
    const response = await call(path, init);
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

for (const kind of storeKinds()) describe(`token checks on ${kind} with two instances`, () => {
  test('a revoked token is refused by both instances at the next request of every kind, changing nothing', async (t) => {
    const { a, b, store } = await twoInstances(t, kind);
    const owner = uniqueName();
    const issued = await issueToken(store, { user: owner });
    assert.ok(issued !== undefined);
    const on = (server: { url: string }): Call => (path, init) => authorizedFetch(server.url + path, issued.token, init);
    assert.equal((await on(a)('/plants', { method: 'POST', json: { id: 10, name: 'Kept' } })).status, 200);
    assert.equal((await on(b)('/plants', { method: 'POST', json: { id: 20, name: 'Kept' } })).status, 200);
    assert.deepEqual(await everyRequest(on(a), 10), [200, 200, 200, 200, 204]);
    assert.deepEqual(await everyRequest(on(b), 20), [200, 200, 200, 200, 204]);

    assert.equal(await store.revokeToken(issued.record.id, new Date()), true);
    for (const server of [b, a]) {
      assert.deepEqual(await everyRequest(on(server), 10), [401, 401, 401, 401, 401]);
      // Refusals that come before the store are 401 too, in the contract's order.
      assert.equal((await on(server)('/plants', { method: 'POST', json: { name: 'no id' } })).status, 401);
      assert.equal((await on(server)('/plants?limit=nope')).status, 401);
      assert.equal((await on(server)('/plants?limit=0')).status, 401);
      assert.equal((await on(server)('/plants')).status, 401);
    }
    assert.equal(await store.getPlant(owner, 11n), undefined, 'a refused create stored nothing');
    assert.deepEqual(await store.getPlant(owner, 10n), { id: 10n, name: 'Kept', tag: null }, 'a refused delete deleted nothing');
  });

  test('a revoked token is refused by a request answered without reading a plant (limit=0, a tag no plant can have)', async (t) => {
    const { a, b, store } = await twoInstances(t, kind);
    for (const path of ['/plants?limit=0', `/plants?tag=${'t'.repeat(65)}`]) {
      const issued = await issueToken(store, { user: uniqueName() });
      assert.ok(issued !== undefined);
      const get = () => authorizedFetch(a.url + path, issued.token);
      assert.equal((await get()).status, 200, `${path}: known to instance a`);
      assert.equal(await b.running.store.revokeToken(issued.record.id, new Date()), true);
      // The first request after the revocation: the token is known, so only its deferred check can refuse it.
      assert.equal((await get()).status, 401, path);
    }
  });

  test('a revoked read-only token is answered 401, not 403, when it asks to write', async (t) => {
    const { a, b, store } = await twoInstances(t, kind);
    const issued = await issueToken(store, { user: uniqueName(), readOnly: true });
    assert.ok(issued !== undefined);
    for (const server of [a, b]) {
      assert.equal((await authorizedFetch(`${server.url}/plants?limit=1`, issued.token)).status, 200);
      assert.equal((await authorizedFetch(`${server.url}/plants`, issued.token, { method: 'POST', json: { id: 1, name: 'x' } })).status, 403);
    }
    await store.revokeToken(issued.record.id, new Date());
    for (const server of [a, b]) {
      assert.equal((await authorizedFetch(`${server.url}/plants`, issued.token, { method: 'POST', json: { id: 1, name: 'x' } })).status, 401);
      assert.equal((await authorizedFetch(`${server.url}/plants/1`, issued.token, { method: 'DELETE' })).status, 401);
    }
  });

  test('an expired token is refused by both instances once its time is up', async (t) => {
    const { a, b, store } = await twoInstances(t, kind);
    const issued = await issueToken(store, { user: uniqueName(), expiresInMs: 5_000 });
    assert.ok(issued !== undefined);
    const expiresAt = issued.record.expiresAt?.getTime() ?? 0;
    for (const server of [a, b]) assert.equal((await authorizedFetch(`${server.url}/plants?limit=10`, issued.token)).status, 200);
    await sleep(expiresAt - Date.now() + 10);
    for (const server of [a, b]) {
      assert.equal((await authorizedFetch(`${server.url}/plants?limit=10`, issued.token)).status, 401);
      assert.equal((await authorizedFetch(`${server.url}/plants`, issued.token, { method: 'POST', json: { id: 1, name: 'late' } })).status, 401);
    }
  });
});
