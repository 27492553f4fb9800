import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { JWTPayload } from 'jose';
import { startTestServer, uniqueName } from '../helpers/server.js';
import { call, mint, roundTrip, signingKey, startJwksServer, trustKeySet, userClaims } from './jwt-fixtures.js';

/** plantstore trusting a fresh key set, and a way to mint tokens with that set's key. */
async function setUp(t: TestContext, settings: Record<string, string> = {}) {
  const key = await signingKey('ES256');
  const jwks = await startJwksServer(t, [key]);
  const server = await startTestServer(t, 'sqlite', { ...trustKeySet(jwks.url), ...settings });
  return { server, token: (claims: JWTPayload) => mint(key, claims) };
}

async function names(response: Response): Promise<string[]> {
  assert.equal(response.status, 200);
  return ((await response.json()) as { name: string }[]).map((plant) => plant.name);
}

describe('the owner of a JWT caller', () => {
  test('a JWT without the owner claim gets 401 invalid_token', async (t) => {
    const { server, token } = await setUp(t);
    const response = await call(server.url, await token({ scope: 'plants:read plants:write' }), '/plants');
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="invalid_token"');
    assert.equal(((await response.json()) as { message: string }).message, 'The bearer token is refused: its sub claim, which names the owner, is missing or not a string.');
  });

  test('a JWT whose owner claim is not a string, is empty, too long or has control characters gets 401 invalid_token', async (t) => {
    const { server, token } = await setUp(t);
    for (const sub of [42, ['alice'], { id: 'alice' }, true, '', 'nul\u0000owner', 'tab\towner', 'x'.repeat(257)]) {
      // Object.assign: jose types `sub` as a string, and these tokens are deliberately not well-typed.
      const claims = Object.assign(userClaims(), { sub });
      const response = await call(server.url, await token(claims), '/plants', { method: 'POST', json: { id: 1, name: 'Fern' } });
      assert.equal(response.status, 401, `sub ${JSON.stringify(sub)}`);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="invalid_token"');
      assert.match(((await response.json()) as { message: string }).message, /^The bearer token is refused: its sub claim(, which names the owner, is missing or not a string| cannot name an owner: it .+)\.$/);
    }
  });

  test('with JWT_OWNER_CLAIM=org_id two users of one organisation share plants; another organisation sees none', async (t) => {
    const { server, token } = await setUp(t, { jwtOwnerClaim: 'org_id' });
    const org = uniqueName('org');
    const ann = await token(userClaims({ sub: 'ann', org_id: org }));
    const bob = await token(userClaims({ sub: 'bob', org_id: org }));
    const outsider = await token(userClaims({ sub: 'ann', org_id: uniqueName('org') }));
    assert.equal((await call(server.url, ann, '/plants', { method: 'POST', json: { id: 7, name: 'Fern' } })).status, 200);
    assert.deepEqual(await names(await call(server.url, bob, '/plants')), ['Fern']);
    assert.deepEqual(await names(await call(server.url, outsider, '/plants')), []);
    assert.equal((await call(server.url, outsider, '/plants/7', { method: 'DELETE' })).status, 404);
    assert.equal((await call(server.url, bob, '/plants/7', { method: 'DELETE' })).status, 204);
  });

  test('a JWT owner alice and the API-token user alice are the same owner', async (t) => {
    const { server, token } = await setUp(t);
    const name = uniqueName('alice');
    const apiUser = await server.user({ name });
    const jwt = await token(userClaims({ sub: name }));
    assert.equal((await apiUser.request('/plants', { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 200);
    assert.equal((await call(server.url, jwt, '/plants', { method: 'POST', json: { id: 2, name: 'Ivy' } })).status, 200);
    assert.deepEqual(await names(await call(server.url, jwt, '/plants')), ['Fern', 'Ivy']);
    assert.deepEqual(await names(await apiUser.request('/plants')), ['Fern', 'Ivy']);
  });

  test('pst_ API tokens keep working with JWTs enabled', async (t) => {
    const { server } = await setUp(t);
    const user = await server.user();
    assert.deepEqual(await roundTrip(server.url, user.token), { post: 200, get: 200, list: [{ name: 'Fern' }], del: 204 });
  });
});

describe('the scopes of a JWT caller', () => {
  test('a JWT without a scope or scp claim gets 403 insufficient_scope on every operation', async (t) => {
    const { server, token } = await setUp(t);
    const jwt = await token({ sub: uniqueName() });
    const cases = [
      { path: '/plants', init: { method: 'GET' }, scope: 'plants:read' },
      { path: '/plants', init: { method: 'POST', json: { id: 1, name: 'Fern' } }, scope: 'plants:write' },
      { path: '/plants/1', init: { method: 'DELETE' }, scope: 'plants:write' },
    ];
    for (const { path, init, scope } of cases) {
      const response = await call(server.url, jwt, path, init);
      assert.equal(response.status, 403, `${init.method} ${path}`);
      assert.equal(response.headers.get('www-authenticate'), `Bearer realm="plantstore", error="insufficient_scope", scope="${scope}"`);
      assert.equal(((await response.json()) as { error: number }).error, 403);
    }
  });

  test('scope "plants:read" may GET but not POST or DELETE', async (t) => {
    const { server, token } = await setUp(t);
    const jwt = await token(userClaims({ scope: 'openid plants:read' }));
    assert.equal((await call(server.url, jwt, '/plants')).status, 200);
    assert.equal((await call(server.url, jwt, '/plants', { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 403);
    assert.equal((await call(server.url, jwt, '/plants/1', { method: 'DELETE' })).status, 403);
  });

  test('scope "plants:write" alone may POST and DELETE but not GET: writing does not include reading', async (t) => {
    const { server, token } = await setUp(t);
    const jwt = await token(userClaims({ scope: 'plants:write' }));
    assert.equal((await call(server.url, jwt, '/plants', { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 200);
    const list = await call(server.url, jwt, '/plants');
    assert.equal(list.status, 403);
    assert.equal(list.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="insufficient_scope", scope="plants:read"');
    assert.equal((await call(server.url, jwt, '/plants/1', { method: 'DELETE' })).status, 204);
  });

  test('GET and HEAD /plants/{id} need plants:read: a write-only JWT gets 403 naming it, a read-only JWT the plant', async (t) => {
    const { server, token } = await setUp(t);
    const sub = uniqueName();
    const writer = await token({ sub, scope: 'plants:write' });
    const reader = await token({ sub, scope: 'plants:read' });
    assert.equal((await call(server.url, writer, '/plants', { method: 'POST', json: { id: 7, name: 'Fern' } })).status, 200);
    for (const method of ['GET', 'HEAD']) {
      const refused = await call(server.url, writer, '/plants/7', { method });
      assert.equal(refused.status, 403, method);
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="insufficient_scope", scope="plants:read"', method);
      await refused.body?.cancel();
    }
    const got = await call(server.url, reader, '/plants/7');
    assert.equal(got.status, 200);
    assert.deepEqual(await got.json(), { name: 'Fern' });
    const none = await call(server.url, await token({ sub }), '/plants/7');
    assert.equal(none.status, 403, 'no scope claim: no scopes');
    await none.body?.cancel();
  });

  test('scp as an array (Entra, Okta) and scp as a space-separated string are accepted', async (t) => {
    const { server, token } = await setUp(t);
    for (const scp of [['plants:read', 'plants:write'], 'plants:read plants:write']) {
      const jwt = await token({ sub: uniqueName(), scp });
      assert.deepEqual(await roundTrip(server.url, jwt), { post: 200, get: 200, list: [{ name: 'Fern' }], del: 204 });
    }
  });

  test('a scope only similar to plants:write (plants:writer, PLANTS:WRITE) grants nothing', async (t) => {
    const { server, token } = await setUp(t);
    const jwt = await token(userClaims({ scope: 'plants:read plants:writer PLANTS:WRITE' }));
    assert.equal((await call(server.url, jwt, '/plants', { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 403);
  });
});
