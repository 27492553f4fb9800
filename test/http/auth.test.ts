/** Bearer authentication on every /plants operation: 401s, 403, scopes, and auth before the body. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { issueToken } from '../../src/auth/api-tokens.js';
import { openStore } from '../../src/store/open-store.js';
import { startTestServer, storeKinds, uniqueName, type TestServer } from '../helpers/server.js';
import { openUnreadStream } from '../helpers/unread-stream.js';

const REALM = 'Bearer realm="plantstore"';
const INVALID = 'Bearer realm="plantstore", error="invalid_token"';
const INSUFFICIENT = 'Bearer realm="plantstore", error="insufficient_scope", scope="plants:write"';

const OPERATIONS: { method: string; path: string; body?: string }[] = [
  { method: 'GET', path: '/plants' },
  { method: 'POST', path: '/plants', body: '{"id":1,"name":"Fern"}' },
  { method: 'DELETE', path: '/plants/1' },
];

/** A request with exactly the Authorization header given (or none). */
function send(server: TestServer, operation: (typeof OPERATIONS)[number], authorization: string | undefined, headers: Record<string, string> = {}): Promise<Response> {
  const all = new Headers(headers);
  if (authorization !== undefined) all.set('authorization', authorization);
  if (operation.body !== undefined && !all.has('content-type')) all.set('content-type', 'application/json');
  return fetch(server.url + operation.path, { method: operation.method, headers: all, body: operation.body });
}

async function assertUnauthorized(response: Response, challenge: string, what: string): Promise<void> {
  assert.equal(response.status, 401, what);
  assert.equal(response.headers.get('www-authenticate'), challenge, what);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await response.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message']);
  assert.equal(body.error, 401);
}

for (const kind of storeKinds()) {
  describe(`authentication on ${kind}`, () => {
    test('missing Authorization header → 401 with WWW-Authenticate: Bearer realm="plantstore"', async (t) => {
      const server = await startTestServer(t, kind);
      for (const operation of OPERATIONS) await assertUnauthorized(await send(server, operation, undefined), REALM, operation.method);
    });

    test('other scheme → 401 with WWW-Authenticate: Bearer realm="plantstore"', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      for (const header of [`Basic ${Buffer.from('a:b').toString('base64')}`, `Token ${user.token}`, `Bearerx ${user.token}`, user.token]) {
        for (const operation of OPERATIONS) await assertUnauthorized(await send(server, operation, header), REALM, `${operation.method} ${header}`);
      }
    });

    test('empty token → 401 with WWW-Authenticate: Bearer realm="plantstore"', async (t) => {
      const server = await startTestServer(t, kind);
      for (const header of ['Bearer', 'Bearer ', 'Bearer    ', '']) {
        for (const operation of OPERATIONS) await assertUnauthorized(await send(server, operation, header), REALM, `${operation.method} "${header}"`);
      }
    });

    test('unknown token → 401 invalid_token', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const unknown = `pst_${'A'.repeat(43)}`;
      const tampered = user.token.slice(0, -1) + (user.token.endsWith('A') ? 'B' : 'A');
      for (const token of [unknown, tampered, 'pst_short', 'not-a-plantstore-token', 'abc.def.ghi', 'bad token chars!']) {
        for (const operation of OPERATIONS) await assertUnauthorized(await send(server, operation, `Bearer ${token}`), INVALID, `${operation.method} ${token}`);
      }
    });

    test('revoked token → 401 invalid_token, on the next request', async (t) => {
      const server = await startTestServer(t, kind);
      const issued = await issueToken(server.running.store, { user: uniqueName('revokee') });
      assert.ok(issued !== undefined);
      assert.equal((await send(server, OPERATIONS[0] as (typeof OPERATIONS)[number], `Bearer ${issued.token}`)).status, 200);
      assert.equal(await server.running.store.revokeToken(issued.record.id, new Date()), true);
      for (const operation of OPERATIONS) await assertUnauthorized(await send(server, operation, `Bearer ${issued.token}`), INVALID, operation.method);
    });

    test('expired token → 401 invalid_token', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user({ expiresInMs: 1 });
      // The token's expiry time is already in the past by the time it is stored.
      for (const operation of OPERATIONS) await assertUnauthorized(await send(server, operation, `Bearer ${user.token}`), INVALID, operation.method);
    });

    test('a token that has not expired yet works', async (t) => {
      const user = await (await startTestServer(t, kind)).user({ expiresInMs: 60_000 });
      assert.equal((await user.request('/plants')).status, 200);
    });

    test('read-only token: GET is allowed', async (t) => {
      const server = await startTestServer(t, kind);
      const reader = await server.user({ readOnly: true });
      const response = await reader.request('/plants');
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), []);
    });

    test('read-only token: POST and DELETE → 403 with insufficient_scope, scope="plants:write"', async (t) => {
      const server = await startTestServer(t, kind);
      const reader = await server.user({ readOnly: true });
      for (const operation of OPERATIONS.slice(1)) {
        const response = await send(server, operation, `Bearer ${reader.token}`);
        assert.equal(response.status, 403, operation.method);
        assert.equal(response.headers.get('www-authenticate'), INSUFFICIENT);
        assert.deepEqual(Object.keys((await response.json()) as object).sort(), ['error', 'message']);
      }
      assert.deepEqual(await (await reader.request('/plants')).json(), [], 'nothing was created');
    });

    test('scheme name is case-insensitive (bearer, BEARER, bEaReR)', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
        const response = await send(server, OPERATIONS[0] as (typeof OPERATIONS)[number], `${scheme} ${user.token}`);
        assert.equal(response.status, 200, scheme);
      }
    });

    test('auth before body: an unauthenticated POST with a bad body or wrong content type gets 401, not 400/413/415', async (t) => {
      const server = await startTestServer(t, kind);
      const post = { method: 'POST', path: '/plants' };
      const cases: { body: string; headers: Record<string, string> }[] = [
        { body: 'not json', headers: { 'content-type': 'application/json' } },
        { body: '{"id":"x"}', headers: { 'content-type': 'application/json' } },
        { body: '{"id":1,"name":"Fern"}', headers: { 'content-type': 'text/plain' } },
        { body: 'x'.repeat(20_000), headers: { 'content-type': 'application/json' } },
        { body: 'x'.repeat(20_000), headers: { 'content-type': 'application/xml' } },
      ];
      for (const { body, headers } of cases) {
        await assertUnauthorized(await send(server, { ...post, body }, undefined, headers), REALM, `no token, ${headers['content-type']}`);
        await assertUnauthorized(await send(server, { ...post, body }, `Bearer pst_${'A'.repeat(43)}`, headers), INVALID, `unknown token, ${headers['content-type']}`);
      }
    });

    test('auth before body, for a token used and then revoked: a bad body, wrong content type or oversized body gets 401', async (t) => {
      const server = await startTestServer(t, kind);
      const cases: { body: string; headers: Record<string, string> }[] = [
        { body: 'not json', headers: { 'content-type': 'application/json' } },
        { body: '{"id":"x","name":"Fern"}', headers: { 'content-type': 'application/json' } },
        { body: '{"id":1,"name":"Fern"}', headers: { 'content-type': 'text/plain' } },
        { body: 'x'.repeat(20_000), headers: { 'content-type': 'application/json' } },
      ];
      for (const { body, headers } of cases) {
        // A token the server has seen is checked again before the body; a fresh one per case, so
        // that no case is refused only because an earlier one made the server forget the token.
        const issued = await issueToken(server.running.store, { user: uniqueName('revokee') });
        assert.ok(issued !== undefined);
        assert.equal((await send(server, OPERATIONS[0] as (typeof OPERATIONS)[number], `Bearer ${issued.token}`)).status, 200);
        assert.equal(await server.running.store.revokeToken(issued.record.id, new Date()), true);
        const what = `${headers['content-type']}, ${body.slice(0, 20)}`;
        await assertUnauthorized(await send(server, { method: 'POST', path: '/plants', body }, `Bearer ${issued.token}`, headers), INVALID, what);
      }
    });

    test('scope before body: a read-only POST with a bad body gets 403, not 400/415', async (t) => {
      const server = await startTestServer(t, kind);
      const reader = await server.user({ readOnly: true });
      for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'text/plain' }]) {
        const response = await send(server, { method: 'POST', path: '/plants', body: 'not json' }, `Bearer ${reader.token}`, headers);
        assert.equal(response.status, 403);
      }
    });
  });
}

describe('revocation and expiry across processes', () => {
  test('every request checks its token, so a revocation by another process or an expiry counts on the next request', async (t) => {
    const server = await startTestServer(t, 'sqlite');
    const store = server.running.store;
    let lookups = 0;
    const findTokenByDigest = store.findTokenByDigest.bind(store);
    store.findTokenByDigest = (digest) => {
      lookups++;
      return findTokenByDigest(digest);
    };
    const revoked = await issueToken(store, { user: uniqueName('revoked') });
    const expiring = await issueToken(store, { user: uniqueName('expiring'), expiresInMs: 5_000 });
    assert.ok(revoked !== undefined && expiring !== undefined);
    const tokens: string[] = [revoked.token, expiring.token];
    const get = (token: string, path: string) => fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
    for (const path of ['/plants?limit=5', '/plants']) for (const token of tokens) assert.equal((await get(token, path)).status, 200, path);
    assert.equal(lookups, 2, 'a token is looked up once; then the store checks its revocation with the plant read');

    // `plantstore token revoke` is another process: another connection to the same file.
    const other = await openStore({ databaseUrl: server.settings.databaseUrl, databasePoolSize: 1 });
    assert.equal(await other.revokeToken(revoked.record.id, new Date()), true);
    await other.close();
    for (const operation of OPERATIONS) await assertUnauthorized(await send(server, operation, `Bearer ${revoked.token}`), INVALID, `revoked: ${operation.method}`);
    await assertUnauthorized(await get(revoked.token, '/plants?limit=x'), INVALID, 'revoked, with a query that is refused before the store');

    const expiresAt = expiring.record.expiresAt?.getTime() ?? 0;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 10)));
    for (const operation of OPERATIONS) await assertUnauthorized(await send(server, operation, `Bearer ${expiring.token}`), INVALID, `expired: ${operation.method}`);
  });
});

describe('a revoked token and the rate limit', () => {
  test("a revoked token spends at most one of its owner's requests per instance, however often it is used", async (t) => {
    const server = await startTestServer(t, 'sqlite', { rateLimit: '3/1m' });
    const store = server.running.store;
    const owner = uniqueName('limited');
    const [leaked, kept] = [await issueToken(store, { user: owner }), await issueToken(store, { user: owner })];
    assert.ok(leaked !== undefined && kept !== undefined);
    const get = (token: string) => fetch(`${server.url}/plants?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal((await get(leaked.token)).status, 200);
    assert.equal(await store.revokeToken(leaked.record.id, new Date()), true);
    for (let i = 0; i < 5; i++) await assertUnauthorized(await get(leaked.token), INVALID, `revoked, use ${i + 1}`);
    assert.equal((await get(kept.token)).status, 200, 'the owner still has requests left');
  });
});

describe('a revoked token and a full process', () => {
  test('a revoked token is answered 401, not the 503 of a process at its stream limit', async (t) => {
    const server = await startTestServer(t, 'sqlite', { streamsPerProcess: '1' });
    const store = server.running.store;
    // A list larger than the socket buffers, read by nobody: it holds the one stream slot.
    const holder = await server.user();
    const name = 'a plant with a name long enough to fill the socket buffers quickly '.repeat(3);
    await Promise.all(Array.from({ length: 40_000 }, (_, i) => store.createPlant(holder.name, { id: BigInt(i), name, tag: null })));
    const held = openUnreadStream(t, server.url, holder.token);
    assert.equal(await held.answered, 200);
    const issued = await issueToken(store, { user: uniqueName('revoked') });
    assert.ok(issued !== undefined);
    const list = () => fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${issued.token}` } });
    assert.equal((await list()).status, 503, 'the process is at its stream limit');
    assert.equal(await store.revokeToken(issued.record.id, new Date()), true);
    await assertUnauthorized(await list(), INVALID, 'revoked while the process is full');
    held.socket.destroy(); // before the server closes, which would wait for the stream
  });
});
