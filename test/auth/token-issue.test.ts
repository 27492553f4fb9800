/** Issued API tokens (API.md "Tokens"): 32 random bytes, only their SHA-256 stored; --expires-in units. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isTokenId, issueToken } from '../../src/auth/api-tokens.js';
import { parseDuration } from '../../src/util/duration.js';
import { openStore } from '../../src/store/open-store.js';
import { tempDir } from '../helpers/server.js';

test('--expires-in takes seconds, minutes, hours and days', () => {
  assert.equal(parseDuration('30s'), 30_000);
  assert.equal(parseDuration('5m'), 300_000);
  assert.equal(parseDuration('2h'), 7_200_000);
  assert.equal(parseDuration('3d'), 259_200_000);
  for (const bad of ['', '0s', '5', '5w', '1.5h', '-1d', '5 m']) assert.equal(parseDuration(bad), undefined, bad);
});

test('a token is pst_ and 32 random bytes; the database holds its SHA-256, never the token', async (t) => {
  const dir = tempDir(t);
  const store = await openStore({ databaseUrl: `sqlite:${join(dir, 'tokens.db')}`, databasePoolSize: 1 });
  const first = await issueToken(store, { user: 'ana' });
  const second = await issueToken(store, { user: 'ana' });
  assert.ok(first !== undefined && second !== undefined);
  const tokens: string[] = [first.token, second.token];
  for (const token of tokens) {
    assert.match(token, /^pst_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token.slice(4), 'base64url').length, 32);
  }
  assert.notEqual(first.token, second.token);
  const digest = createHash('sha256').update(first.token).digest('hex');
  assert.equal((await store.findTokenByDigest(digest))?.id, first.record.id);
  await store.close();
  for (const file of readdirSync(dir)) {
    const bytes = readFileSync(join(dir, file));
    for (const token of tokens) assert.equal(bytes.includes(token), false, `${file} holds a token`);
  }
  const database = Buffer.concat(readdirSync(dir).map((file) => readFileSync(join(dir, file))));
  assert.ok(database.includes(Buffer.from(digest, 'hex')), 'the digest is stored');
});

test('a read-only token holds plants:read only, an expiring one its expiry; a lifetime past the year 9999 is refused and nothing stored', async (t) => {
  const store = await openStore({ databaseUrl: `sqlite:${join(tempDir(t), 'tokens.db')}`, databasePoolSize: 1 });
  t.after(() => store.close());
  const readOnly = await issueToken(store, { user: 'ana', readOnly: true, expiresInMs: 60_000 });
  assert.deepEqual(readOnly?.record.scopes, ['plants:read']);
  assert.ok(readOnly.record.expiresAt !== null && Math.abs(readOnly.record.expiresAt.getTime() - readOnly.record.createdAt.getTime() - 60_000) < 5);
  assert.deepEqual((await issueToken(store, { user: 'ana' }))?.record.scopes, ['plants:read', 'plants:write']);
  await assert.rejects(issueToken(store, { user: 'bo', expiresInMs: 10_000 * 365 * 86_400_000 }), RangeError);
  assert.deepEqual((await store.listTokens()).map((token) => token.user), ['ana', 'ana']);
});

test('a token id is tok_ and exactly 12 lowercase hex digits', async (t) => {
  const store = await openStore({ databaseUrl: `sqlite:${join(tempDir(t), 'tokens.db')}`, databasePoolSize: 1 });
  t.after(() => store.close());
  const issued = await issueToken(store, { user: 'ana' });
  assert.match(issued?.record.id ?? '', /^tok_[0-9a-f]{12}$/);
  assert.equal(isTokenId(issued?.record.id ?? ''), true);
  for (const bad of ['tok_0123456789a', 'tok_0123456789abc', 'tok_0123456789AB', 'xtok_0123456789ab', 'tok_0123456789ab\n']) assert.equal(isTokenId(bad), false, bad);
});

test('the first-start token is issued only into a store without tokens', async (t) => {
  const store = await openStore({ databaseUrl: `sqlite:${join(tempDir(t), 'tokens.db')}`, databasePoolSize: 1 });
  t.after(() => store.close());
  const first = await issueToken(store, { user: 'admin', onlyIfFirst: true });
  assert.ok(first !== undefined);
  assert.equal(await issueToken(store, { user: 'admin', onlyIfFirst: true }), undefined);
  assert.deepEqual((await store.listTokens()).map((token) => token.id), [first.record.id]);
});
