/** A JWT's owner claim is a user name like any other, written in NFC, and refused when it hides characters. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT, type JWTPayload } from 'jose';
import { startTestServer, uniqueName } from '../helpers/server.js';
import { call, userClaims } from './jwt-fixtures.js';

const SECRET = 'development secret, thirty-two bytes or more';

function hs256(claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setExpirationTime('5m').sign(new TextEncoder().encode(SECRET));
}

describe('JWT owner claims as user names', () => {
  test('a composed owner (é) is the API-token user of that name; a decomposed one (e + U+0301) → 401, never that user', async (t) => {
    const server = await startTestServer(t, 'sqlite', { jwtSecret: SECRET });
    const base = uniqueName('jos');
    const user = await server.user({ name: `${base}\u00e9` });
    assert.equal((await user.request('/plants', { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 200);
    const composed = await call(server.url, await hs256(userClaims({ sub: `${base}\u00e9` })), '/plants');
    assert.equal(composed.status, 200);
    assert.deepEqual(await composed.json(), [{ name: 'Fern' }]);
    const decomposed = await call(server.url, await hs256(userClaims({ sub: `${base}e\u0301` })), '/plants');
    assert.equal(decomposed.status, 401);
    assert.equal(decomposed.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="invalid_token"');
    assert.equal(((await decomposed.json()) as { message: string }).message, 'The bearer token is refused: its sub claim cannot name an owner: it is not in Unicode NFC.');
  });

  for (const [what, sub] of [
    ['a leading space', ' admin'],
    ['a trailing space', 'admin '],
    ['a zero-width space', 'ad\u200bmin'],
    ['a bidi override', 'admin\u202e'],
  ]) {
    test(`an owner claim with ${what} → 401 invalid_token`, async (t) => {
      const server = await startTestServer(t, 'sqlite', { jwtSecret: SECRET });
      const response = await call(server.url, await hs256(userClaims({ sub })), '/plants');
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="invalid_token"');
      assert.match(((await response.json()) as { message: string }).message, /^The bearer token is refused: its sub claim cannot name an owner: it (starts or ends with white space|contains U\+[0-9A-F]{4}, an invisible or control character)\.$/);
    });
  }
});
