import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT, type JWTPayload } from 'jose';
import { startTestServer } from '../helpers/server.js';
import { call, mint, roundTrip, signingKey, userClaims } from './jwt-fixtures.js';

const SECRET = 'development secret, thirty-two bytes or more';

function hs256(claims: JWTPayload, secret = SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setExpirationTime('5m').sign(new TextEncoder().encode(secret));
}

describe('JWTs signed with the shared secret (JWT_SECRET, development)', () => {
  test('an HS256 token signed with JWT_SECRET works on POST, GET and DELETE', async (t) => {
    const server = await startTestServer(t, 'sqlite', { jwtSecret: SECRET });
    assert.deepEqual(await roundTrip(server.url, await hs256(userClaims())), { post: 200, get: 200, list: [{ name: 'Fern' }], del: 204 });
  });

  test('an HS256 token signed with another secret gets 401 invalid_token', async (t) => {
    const server = await startTestServer(t, 'sqlite', { jwtSecret: SECRET });
    const response = await call(server.url, await hs256(userClaims(), `${SECRET}, but another`), '/plants');
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="invalid_token"');
  });

  test('an RS256 token is refused when only JWT_SECRET is configured', async (t) => {
    const server = await startTestServer(t, 'sqlite', { jwtSecret: SECRET });
    const response = await call(server.url, await mint(await signingKey('RS256')), '/plants');
    assert.equal(response.status, 401);
  });

  test('JWTs are refused while neither JWT_SECRET nor JWT_JWKS_URL is set', async (t) => {
    const server = await startTestServer(t, 'sqlite');
    const response = await call(server.url, await hs256(userClaims()), '/plants');
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="invalid_token"');
  });
});
