/** ApiTokenVerifier and Authenticator against an in-memory token store: neither the digest memo nor verifyNow stands in for the store’s answer. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiTokenVerifier, digestToken } from '../../src/auth/api-tokens.js';
import { Authenticator } from '../../src/auth/bearer.js';
import { ApiError } from '../../src/errors.js';
import type { NewTokenRecord, TokenRecord, TokenStore } from '../../src/store/store.js';

const TOKEN = `pst_${'a'.repeat(43)}`;
const OTHER = `pst_${'a'.repeat(42)}b`;

class MemoryTokens implements TokenStore {
  readonly records = new Map<string, TokenRecord>();
  readonly lookups: string[] = [];

  add(token: string, user: string): TokenRecord {
    const record: TokenRecord = { id: `tok_${user}`, user, scopes: ['plants:read'], createdAt: new Date(), expiresAt: null, lastUsedAt: null, revokedAt: null };
    this.records.set(digestToken(token), record);
    return record;
  }

  async findTokenByDigest(digest: string): Promise<TokenRecord | undefined> {
    this.lookups.push(digest);
    return this.records.get(digest);
  }

  async createToken(_token: NewTokenRecord): Promise<void> {}
  async createFirstToken(_token: NewTokenRecord): Promise<boolean> {
    return false;
  }
  async listTokens(): Promise<TokenRecord[]> {
    return [...this.records.values()];
  }
  async revokeToken(): Promise<boolean> {
    return false;
  }
  async touchToken(): Promise<void> {}
}

const touchFailed = (error: unknown) => assert.fail(`touch failed: ${String(error)}`);

async function refused(promise: Promise<unknown>): Promise<void> {
  await assert.rejects(promise, (error: unknown) => error instanceof ApiError && error.status === 401);
}

test('every verification asks the store, by the token’s SHA-256, also for a token seen before', async () => {
  const tokens = new MemoryTokens();
  tokens.add(TOKEN, 'ana');
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  for (let i = 0; i < 3; i++) assert.equal((await verifier.verify(TOKEN)).owner, 'ana');
  assert.deepEqual(tokens.lookups, Array.from({ length: 3 }, () => digestToken(TOKEN)));
  assert.equal(verifier.rememberedDigests, 1, 'the digest is remembered once');
});

test('a token revoked after it was verified is refused on its next use', async () => {
  const tokens = new MemoryTokens();
  const record = tokens.add(TOKEN, 'ana');
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  await verifier.verify(TOKEN);
  record.revokedAt = new Date();
  await refused(verifier.verify(TOKEN));
  assert.equal(verifier.rememberedDigests, 0, 'a refused token is forgotten');
  tokens.records.delete(digestToken(TOKEN));
  await refused(verifier.verify(TOKEN));
});

test('a token one character away from a verified one gets its own digest and is refused', async () => {
  const tokens = new MemoryTokens();
  tokens.add(TOKEN, 'ana');
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  await verifier.verify(TOKEN);
  await refused(verifier.verify(OTHER));
  assert.equal(tokens.lookups.at(-1), digestToken(OTHER));
  assert.equal(verifier.rememberedDigests, 1, 'a refused token is never remembered');
});

test('a malformed token is refused without a store lookup, before and after valid tokens were seen', async () => {
  const tokens = new MemoryTokens();
  tokens.add(TOKEN, 'ana');
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  await refused(verifier.verify('pst_short'));
  await verifier.verify(TOKEN);
  await refused(verifier.verify(`${TOKEN}x`));
  assert.deepEqual(tokens.lookups, [digestToken(TOKEN)]);
});

test('at most 10,000 digests are remembered; past that the memo starts over and every token still verifies', async () => {
  const tokens = new MemoryTokens();
  const all = Array.from({ length: 12_000 }, (_, i) => `pst_${i.toString().padStart(43, '0')}`);
  all.forEach((token, i) => tokens.add(token, `user${i}`));
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  for (const round of [0, 1]) {
    for (let i = 0; i < all.length; i += 997) assert.equal((await verifier.verify(all[i] as string)).owner, `user${i}`, `round ${round}`);
  }
  const fresh = new ApiTokenVerifier(tokens, touchFailed);
  for (let i = 0; i < all.length; i++) {
    await fresh.verify(all[i] as string);
    assert.ok(fresh.rememberedDigests <= 10_000);
  }
  assert.equal(fresh.rememberedDigests, 12_000 - 10_000, 'cleared once at 10,000, then filled again');
  assert.equal((await fresh.verify(all[0] as string)).owner, 'user0');
});

/** A store that also answers from memory, as the SQLite store's token cache does. */
class CachingMemoryTokens extends MemoryTokens {
  readonly cached = new Map<string, TokenRecord>();

  cachedToken(digest: string): TokenRecord | undefined {
    return this.cached.get(digest);
  }
}

test('verifyNow answers only for a remembered token whose record the store holds in memory', async () => {
  const tokens = new CachingMemoryTokens();
  const record = tokens.add(TOKEN, 'ana');
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  tokens.cached.set(digestToken(TOKEN), record);
  assert.equal(verifier.verifyNow(TOKEN), undefined, 'never verified: its digest is not known yet');
  const principal = await verifier.verify(TOKEN);
  assert.equal(verifier.verifyNow(TOKEN), principal, 'the same caller, without waiting');
  tokens.cached.clear();
  assert.equal(verifier.verifyNow(TOKEN), undefined, 'not in the store’s memory: the caller must wait for verify()');
  assert.equal(new ApiTokenVerifier(new MemoryTokens(), touchFailed).verifyNow(TOKEN), undefined, 'a store without a cache');
});

test('verifyNow refuses a token revoked or expired after it was verified, and forgets it', async () => {
  for (const end of ['revokedAt', 'expiresAt'] as const) {
    const tokens = new CachingMemoryTokens();
    const record = tokens.add(TOKEN, 'ana');
    tokens.cached.set(digestToken(TOKEN), record);
    const verifier = new ApiTokenVerifier(tokens, touchFailed);
    await verifier.verify(TOKEN);
    record[end] = new Date(Date.now() - 1);
    assert.throws(() => verifier.verifyNow(TOKEN), (error: unknown) => error instanceof ApiError && error.status === 401, end);
    assert.equal(verifier.rememberedDigests, 0, end);
    assert.equal(verifier.verifyNow(TOKEN), undefined, `${end}: forgotten, so the next try goes to the store`);
  }
});

test('verifyNow refuses a token of the wrong length at once', () => {
  const verifier = new ApiTokenVerifier(new CachingMemoryTokens(), touchFailed);
  assert.throws(() => verifier.verifyNow(`${TOKEN}x`), (error: unknown) => error instanceof ApiError && error.status === 401);
});

test('Authenticator.authorizeNow checks the scope and falls back when a verifier cannot answer from memory', async () => {
  const tokens = new CachingMemoryTokens();
  const record = tokens.add(TOKEN, 'ana');
  tokens.cached.set(digestToken(TOKEN), record);
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  const authenticator = new Authenticator([verifier]);
  assert.equal(authenticator.authorizeNow(`Bearer ${TOKEN}`, 'plants:read'), undefined, 'first use goes through authorize()');
  const principal = await authenticator.authorize(`Bearer ${TOKEN}`, 'plants:read');
  assert.equal(authenticator.authorizeNow(`Bearer ${TOKEN}`, 'plants:read'), principal);
  assert.throws(() => authenticator.authorizeNow(`Bearer ${TOKEN}`, 'plants:write'), (error: unknown) => error instanceof ApiError && error.status === 403);
  assert.throws(() => authenticator.authorizeNow(undefined, 'plants:read'), (error: unknown) => error instanceof ApiError && error.status === 401);
  const noMemory = new Authenticator([{ accepts: () => true, verify: async () => principal }]);
  assert.equal(noMemory.authorizeNow(`Bearer ${TOKEN}`, 'plants:read'), undefined, 'a verifier without verifyNow');
});
