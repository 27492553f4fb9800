/** The TokenStore contract, one suite run against every store. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type { NewTokenRecord } from '../../src/store/store.js';
import { uniqueName } from '../helpers/server.js';
import { storeFactories } from './store-factories.js';

function newToken(overrides: Partial<NewTokenRecord> = {}): NewTokenRecord {
  return {
    id: `tok_${randomBytes(6).toString('hex')}`,
    digest: randomBytes(32).toString('hex'),
    user: uniqueName(),
    scopes: ['plants:read', 'plants:write'],
    createdAt: new Date(Date.now() - 1000),
    expiresAt: null,
    ...overrides,
  };
}

for (const factory of storeFactories()) {
  describe(`TokenStore contract on ${factory.kind}`, { skip: factory.skip }, () => {
    test('a created token is found by its digest with every field intact', async (t) => {
      const store = await factory.open(t);
      const token = newToken({ scopes: ['plants:read'], expiresAt: new Date('2031-01-02T03:04:05.678Z') });
      await store.createToken(token);
      const found = await store.findTokenByDigest(token.digest);
      assert.deepEqual(found, {
        id: token.id,
        user: token.user,
        scopes: ['plants:read'],
        createdAt: token.createdAt,
        expiresAt: token.expiresAt,
        lastUsedAt: null,
        revokedAt: null,
      });
      assert.equal(await store.findTokenByDigest(randomBytes(32).toString('hex')), undefined);
      assert.deepEqual((await store.listTokens()).map((record) => record.id), [token.id]);
    });

    test('revokeToken revokes once; an unknown id revokes nothing', async (t) => {
      const store = await factory.open(t);
      const token = newToken();
      await store.createToken(token);
      const at = new Date();
      assert.equal(await store.revokeToken(token.id, at), true);
      assert.equal(await store.revokeToken(token.id, new Date()), false);
      assert.equal(await store.revokeToken('tok_unknown', new Date()), false);
      assert.deepEqual((await store.findTokenByDigest(token.digest))?.revokedAt, at);
    });

    test('a revocation or touch through another store on the same database shows at the next find', async (t) => {
      const url = await factory.freshUrl(t);
      const [store, other] = await Promise.all([factory.open(t, { url }), factory.open(t, { url })]);
      const token = newToken();
      await store.createToken(token);
      assert.equal((await store.findTokenByDigest(token.digest))?.revokedAt, null);
      const touchedAt = new Date();
      await other.touchToken(token.id, touchedAt);
      assert.deepEqual((await store.findTokenByDigest(token.digest))?.lastUsedAt, touchedAt);
      const revokedAt = new Date();
      assert.equal(await other.revokeToken(token.id, revokedAt), true);
      assert.deepEqual((await store.findTokenByDigest(token.digest))?.revokedAt, revokedAt);
    });

    test('touchToken records the last use', async (t) => {
      const store = await factory.open(t);
      const token = newToken();
      await store.createToken(token);
      assert.equal((await store.findTokenByDigest(token.digest))?.lastUsedAt, null);
      const at = new Date();
      await store.touchToken(token.id, at);
      assert.deepEqual((await store.findTokenByDigest(token.digest))?.lastUsedAt, at);
    });

    test('touchToken never moves the last use back, nor records use of a revoked token', async (t) => {
      const store = await factory.open(t);
      const token = newToken();
      await store.createToken(token);
      const later = new Date('2030-01-02T00:00:00Z');
      await store.touchToken(token.id, later);
      await store.touchToken(token.id, new Date('2030-01-01T00:00:00Z'));
      assert.deepEqual((await store.findTokenByDigest(token.digest))?.lastUsedAt, later, 'an older use arriving late');
      assert.equal(await store.revokeToken(token.id, new Date('2030-01-03T00:00:00Z')), true);
      await store.touchToken(token.id, new Date('2030-01-04T00:00:00Z'));
      assert.deepEqual((await store.findTokenByDigest(token.digest))?.lastUsedAt, later, 'a use after revocation');
    });

    test('createFirstToken creates only into an empty token store', async (t) => {
      const store = await factory.open(t);
      assert.equal(await store.createFirstToken(newToken()), true);
      assert.equal(await store.createFirstToken(newToken()), false);
      assert.equal((await store.listTokens()).length, 1);
    });

    test('createFirstToken from two stores at once creates exactly one', async (t) => {
      const url = await factory.freshUrl(t);
      const [a, b] = await Promise.all([factory.open(t, { url }), factory.open(t, { url })]);
      const results = await Promise.all([a, b, a, b].map((store) => store.createFirstToken(newToken())));
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal((await a.listTokens()).length, 1);
    });
  });
}
