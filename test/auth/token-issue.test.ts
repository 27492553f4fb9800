/** Issued API tokens (API.md "Tokens"): 32 random bytes, only their SHA-256 stored; --expires-in units. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { issueToken } from '../../src/auth/api-tokens.js';
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
