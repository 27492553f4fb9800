import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { JWKS_REFETCH_INTERVAL_MS } from '../../src/auth/jwks-cache.js';
import { startTestServer } from '../helpers/server.js';
import { call, mint, signingKey, startJwksServer, trustKeySet, userClaims } from './jwt-fixtures.js';

describe('key rotation at the identity provider', { concurrency: true }, () => {
  test('a new kid published in the key set is accepted without a restart', async (t) => {
    // The contract bounds the wait for a rotated key; the sleeps below use this interval.
    assert.ok(JWKS_REFETCH_INTERVAL_MS <= 5_000, 'an unknown kid refetches the set within 5 s');
    const first = await signingKey('RS256');
    const jwks = await startJwksServer(t, [first]);
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url));
    assert.equal((await call(server.url, await mint(first), '/plants')).status, 200);

    const rotated = await signingKey('RS256');
    jwks.publish([first, rotated]);
    // The set was fetched moments ago; the next refetch may run once the interval has passed.
    await sleep(JWKS_REFETCH_INTERVAL_MS + 100);
    assert.equal((await call(server.url, await mint(rotated), '/plants')).status, 200);
    assert.equal((await call(server.url, await mint(first), '/plants')).status, 200);
    assert.equal(jwks.fetches, 2);
  });

  test('a key rotated in is found for a token without kid too, whose failed signature looks again', async (t) => {
    const first = await signingKey('ES256');
    const jwks = await startJwksServer(t, [first]);
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url));
    const withoutKid = { header: { kid: undefined } };
    assert.equal((await call(server.url, await mint(first, userClaims(), withoutKid), '/plants')).status, 200);

    const rotated = await signingKey('ES256');
    jwks.publish([first, rotated]);
    await sleep(JWKS_REFETCH_INTERVAL_MS + 100);
    assert.equal((await call(server.url, await mint(rotated, userClaims(), withoutKid), '/plants')).status, 200);
    assert.equal(jwks.fetches, 2);
    // A signature no key of the set makes looks again only once per interval.
    const strangers = await Promise.all(Array.from({ length: 5 }, () => signingKey('ES256')));
    const statuses = await Promise.all(strangers.map(async (stranger) => (await call(server.url, await mint(stranger, userClaims(), withoutKid), '/plants')).status));
    assert.deepEqual(new Set(statuses), new Set([401]));
    assert.equal(jwks.fetches, 2);
  });

  test('a flood of unknown kids refetches the set at most once per interval', async (t) => {
    const key = await signingKey('ES256');
    const jwks = await startJwksServer(t, [key]);
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url));
    assert.equal((await call(server.url, await mint(key), '/plants')).status, 200);
    const strangers = await Promise.all(Array.from({ length: 10 }, () => signingKey('ES256')));
    const statuses = await Promise.all(strangers.map(async (stranger) => (await call(server.url, await mint(stranger), '/plants')).status));
    assert.deepEqual(new Set(statuses), new Set([401]));
    assert.equal(jwks.fetches, 1);
  });

  test('a key the provider dropped stops working once the set is refetched', async (t) => {
    const old = await signingKey('RS256');
    const current = await signingKey('RS256');
    const jwks = await startJwksServer(t, [old]);
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url));
    assert.equal((await call(server.url, await mint(old), '/plants')).status, 200);
    jwks.publish([current]);
    await sleep(JWKS_REFETCH_INTERVAL_MS + 100);
    // The new kid makes plantstore refetch; the set it gets no longer holds the old key.
    assert.equal((await call(server.url, await mint(current), '/plants')).status, 200);
    assert.equal((await call(server.url, await mint(old), '/plants')).status, 401);
  });
});
