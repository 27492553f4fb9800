import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { SignJWT, exportJWK, exportSPKI } from 'jose';
import { startTestServer } from '../helpers/server.js';
import { call, mint, nowSeconds, roundTrip, signingKey, startJwksServer, trustKeySet, unsignedToken, userClaims, type SigningAlg } from './jwt-fixtures.js';

const INVALID_TOKEN = 'Bearer realm="plantstore", error="invalid_token"';

/** A key set with one key of `alg`, and plantstore trusting it (with the given extra settings). */
async function providerAndServer(t: TestContext, alg: SigningAlg = 'RS256', settings: Record<string, string> = {}) {
  const key = await signingKey(alg);
  const jwks = await startJwksServer(t, [key]);
  const server = await startTestServer(t, 'sqlite', { ...trustKeySet(jwks.url), ...settings });
  return { key, jwks, server };
}

/** What a token gets whose signature does not hold: nothing about why. */
const UNKNOWN = 'The bearer token is unknown, revoked, expired or badly signed.';

/** A 401 invalid_token; `message` names the claim refused when the signature holds. */
async function assertInvalidToken(baseUrl: string, token: string, message = UNKNOWN): Promise<void> {
  const response = await call(baseUrl, token, '/plants');
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), INVALID_TOKEN);
  assert.deepEqual(await response.json(), { error: 401, message });
}

describe('JWTs verified against a JWKS', () => {
  for (const alg of ['RS256', 'PS256', 'ES256', 'EdDSA'] as const) {
    test(`a ${alg} token from the key set works on POST, GET and DELETE`, async (t) => {
      const { key, server } = await providerAndServer(t, alg);
      const result = await roundTrip(server.url, await mint(key));
      assert.deepEqual(result, { post: 200, get: 200, list: [{ name: 'Fern' }], del: 204 });
    });
  }

  test('iss and aud are accepted when they match the settings; aud may be an array holding the audience', async (t) => {
    const { key, server } = await providerAndServer(t, 'RS256', { jwtIssuer: 'https://idp.example', jwtAudience: 'plantstore' });
    const single = await mint(key, userClaims({ iss: 'https://idp.example', aud: 'plantstore' }));
    assert.equal((await call(server.url, single, '/plants')).status, 200);
    const array = await mint(key, userClaims({ iss: 'https://idp.example', aud: ['billing', 'plantstore'] }));
    assert.equal((await call(server.url, array, '/plants')).status, 200);
  });

  test('a token without kid is tried against each key of its algorithm in the set', async (t) => {
    const [first, second] = [await signingKey('ES256'), await signingKey('ES256')];
    const jwks = await startJwksServer(t, [first, second]);
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url));
    assert.equal((await call(server.url, await mint(second, userClaims(), { header: { kid: undefined } }), '/plants')).status, 200);
    const stranger = await signingKey('ES256');
    await assertInvalidToken(server.url, await mint(stranger, userClaims(), { header: { kid: undefined } }));
    // The second key's signature holds: its holder is told the claim, and the set is not fetched again for it.
    const fetches = jwks.fetches;
    const expired = await mint(second, userClaims({ exp: nowSeconds() - 60 }), { header: { kid: undefined } });
    await assertInvalidToken(server.url, expired, 'The bearer token is refused: it has expired (exp).');
    assert.equal(jwks.fetches, fetches);
  });

  test('an nbf within the 5 s clock tolerance is accepted', async (t) => {
    const { key, server } = await providerAndServer(t);
    const token = await mint(key, userClaims({ nbf: nowSeconds() + 2 }));
    assert.equal((await call(server.url, token, '/plants')).status, 200);
  });

  test('an iat within the 5 s clock tolerance is accepted', async (t) => {
    const { key, server } = await providerAndServer(t);
    assert.equal((await call(server.url, await mint(key, userClaims(), { issuedAt: nowSeconds() + 2 }), '/plants')).status, 200);
  });
});

describe('forged or stale JWTs get 401 invalid_token', () => {
  test('alg none', async (t) => {
    const { key, server } = await providerAndServer(t);
    await assertInvalidToken(server.url, unsignedToken({ ...userClaims(), exp: nowSeconds() + 300 }, { alg: 'none', kid: key.kid }));
  });

  test('algorithm confusion: an HS256 token signed with the public key as the secret', async (t) => {
    const { key, server } = await providerAndServer(t);
    const claims = userClaims();
    for (const secret of [await exportSPKI(key.publicKey), JSON.stringify(await exportJWK(key.publicKey))]) {
      const token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: key.kid })
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
      await assertInvalidToken(server.url, token);
    }
  });

  test('a kid that is not in the key set', async (t) => {
    const { server } = await providerAndServer(t);
    const stranger = await signingKey('RS256');
    await assertInvalidToken(server.url, await mint(stranger));
  });

  test('a token signed by another key under a kid that is in the set', async (t) => {
    const { key, server } = await providerAndServer(t);
    const impostor = await signingKey('RS256', key.kid);
    await assertInvalidToken(server.url, await mint(impostor));
  });

  test('malformed tokens', async (t) => {
    const { key, server } = await providerAndServer(t);
    const good = await mint(key);
    const [header, payload, signature] = good.split('.') as [string, string, string];
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...userClaims(), exp: nowSeconds() + 300 })).toString('base64url')}.${signature}`;
    for (const token of ['a.b.c', `${header}.${payload}`, `${header}.${payload}.${signature}.x`, 'not-a-jwt', `${header}.bm90IGpzb24.${signature}`, tampered]) {
      await assertInvalidToken(server.url, token);
    }
  });

  test('an expired token (exp in the past)', async (t) => {
    const { key, server } = await providerAndServer(t);
    await assertInvalidToken(server.url, await mint(key, userClaims({ exp: nowSeconds() - 60 })), 'The bearer token is refused: it has expired (exp).');
  });

  test('a token without exp', async (t) => {
    const { key, server } = await providerAndServer(t);
    await assertInvalidToken(server.url, await mint(key, userClaims(), { noExpiry: true }), 'The bearer token is refused: it has no exp claim.');
  });

  test('a token not yet valid (nbf a minute ahead)', async (t) => {
    const { key, server } = await providerAndServer(t);
    await assertInvalidToken(server.url, await mint(key, userClaims({ nbf: nowSeconds() + 60 })), 'The bearer token is refused: it is not valid yet (nbf).');
  });

  test('a token issued in the future (iat a minute ahead): a wrong clock or a token minted for later', async (t) => {
    const { key, server } = await providerAndServer(t);
    await assertInvalidToken(server.url, await mint(key, userClaims(), { issuedAt: nowSeconds() + 60 }), 'The bearer token is refused: it was issued in the future (iat).');
  });

  test('a wrong iss, or none, when JWT_ISSUER is set', async (t) => {
    const { key, server } = await providerAndServer(t, 'RS256', { jwtIssuer: 'https://idp.example' });
    await assertInvalidToken(server.url, await mint(key, userClaims({ iss: 'https://evil.example' })), 'The bearer token is refused: its issuer (iss) is not the one this service accepts.');
    await assertInvalidToken(server.url, await mint(key, userClaims({ iss: undefined })), 'The bearer token is refused: it has no iss claim.');
  });

  test('a wrong aud, or none, when JWT_AUDIENCE is set', async (t) => {
    const { key, server } = await providerAndServer(t, 'RS256', { jwtAudience: 'plantstore' });
    const wrongAudience = 'The bearer token is refused: its audience (aud) is none this service accepts.';
    await assertInvalidToken(server.url, await mint(key, userClaims({ aud: 'billing' })), wrongAudience);
    await assertInvalidToken(server.url, await mint(key, userClaims({ aud: ['billing', 'crm'] })), wrongAudience);
    await assertInvalidToken(server.url, await mint(key, userClaims({ aud: undefined })), 'The bearer token is refused: it has no aud claim.');
  });

  test('a key the set marks for encryption, or for other operations than verify, is not used to verify', async (t) => {
    const forEncryption = await signingKey('RS256');
    forEncryption.publicJwk = { ...forEncryption.publicJwk, use: 'enc' };
    const notForVerify = await signingKey('ES256');
    notForVerify.publicJwk = { ...notForVerify.publicJwk, use: undefined, key_ops: ['encrypt'] };
    const jwks = await startJwksServer(t, [forEncryption, notForVerify]);
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url));
    await assertInvalidToken(server.url, await mint(forEncryption));
    await assertInvalidToken(server.url, await mint(notForVerify));
  });

  test('a key carried in the token (jwk header), even one that signed it', async (t) => {
    const { key, server } = await providerAndServer(t);
    const attacker = await signingKey('RS256');
    await assertInvalidToken(server.url, await mint(attacker, userClaims(), { header: { jwk: await exportJWK(attacker.publicKey), kid: undefined } }));
    // The header alone is refused, whatever signed the token.
    await assertInvalidToken(server.url, await mint(key, userClaims(), { header: { jwk: key.publicJwk } }));
  });

  test('jku, x5u and x5c headers are refused and their URLs never fetched', async (t) => {
    const { server, jwks } = await providerAndServer(t);
    const attacker = await signingKey('RS256');
    const attackerSet = await startJwksServer(t, [attacker]);
    for (const header of [{ jku: attackerSet.url }, { x5u: attackerSet.url }, { x5c: ['MIIB'] }]) {
      await assertInvalidToken(server.url, await mint(attacker, userClaims(), { header }));
    }
    assert.equal(attackerSet.fetches, 0);
    assert.ok(jwks.fetches <= 1, 'only the configured key set may be fetched');
  });

  test('an HS256 token is refused when only a JWKS is configured', async (t) => {
    const { key, server } = await providerAndServer(t);
    const token = await new SignJWT(userClaims())
      .setProtectedHeader({ alg: 'HS256', kid: key.kid })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a shared secret of at least thirty-two bytes'));
    await assertInvalidToken(server.url, token);
  });
});
