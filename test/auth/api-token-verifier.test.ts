/** ApiTokenVerifier and Authenticator against in-memory token stores, one answering at once and one with promises. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiTokenVerifier, digestToken, expiryAfter } from '../../src/auth/api-tokens.js';
import { Authenticator } from '../../src/auth/authenticator.js';
import { ApiError } from '../../src/errors.js';
import type { NewTokenRecord, TokenRecord, TokenStore } from '../../src/store/store.js';

const TOKEN = `pst_${'a'.repeat(43)}`;

/** Answers lookups at once, as the SQLite store does. */
class MemoryTokens implements TokenStore {
  readonly records = new Map<string, TokenRecord>();
  readonly lookups: string[] = [];

  add(token: string, user: string): TokenRecord {
    const record: TokenRecord = { id: `tok_${user}`, user, scopes: ['plants:read'], createdAt: new Date(), expiresAt: null, lastUsedAt: null, revokedAt: null };
    this.records.set(digestToken(token), record);
    return record;
  }

  findTokenByDigest(digest: string): TokenRecord | undefined | Promise<TokenRecord | undefined> {
    this.lookups.push(digest);
    return this.records.get(digest);
  }

  isTokenValid(digest: string): boolean | Promise<boolean> {
    const record = this.records.get(digest);
    return record !== undefined && record.revokedAt === null;
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

/** Answers lookups with promises, as the PostgreSQL store does. */
class RemoteTokens extends MemoryTokens {
  override findTokenByDigest(digest: string): Promise<TokenRecord | undefined> {
    return Promise.resolve(super.findTokenByDigest(digest));
  }

  override isTokenValid(digest: string): Promise<boolean> {
    return Promise.resolve(super.isTokenValid(digest));
  }
}

const touchFailed = (error: unknown) => assert.fail(`touch failed: ${String(error)}`);
const isStatus = (status: number) => (error: unknown) => error instanceof ApiError && error.status === status;

test('a store that answers at once is answered at once, the token looked up by its SHA-256', () => {
  const tokens = new MemoryTokens();
  tokens.add(TOKEN, 'ana');
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  for (let i = 0; i < 3; i++) {
    const principal = verifier.verify(TOKEN);
    assert.ok(!(principal instanceof Promise), 'no promise when the store gave a value');
    assert.equal(principal.owner, 'ana');
  }
  assert.deepEqual(tokens.lookups, [digestToken(TOKEN)]);
});

test('a store that answers with promises is awaited', async () => {
  const tokens = new RemoteTokens();
  tokens.add(TOKEN, 'ana');
  const principal = new ApiTokenVerifier(tokens, touchFailed).verify(TOKEN);
  assert.ok(principal instanceof Promise);
  assert.equal((await principal).owner, 'ana');
});

test('a token revoked after it was verified is refused by the check handed on with its next use', async () => {
  for (const Store of [MemoryTokens, RemoteTokens]) {
    const tokens = new Store();
    const record = tokens.add(TOKEN, 'ana');
    const verifier = new ApiTokenVerifier(tokens, touchFailed);
    await verifier.verify(TOKEN);
    record.revokedAt = new Date(Date.now() - 1);
    const next = await verifier.verify(TOKEN);
    await assert.rejects(async () => next.pending?.confirm(), isStatus(401), Store.name);
  }
});

test('an unknown token and one of the wrong shape are refused; the latter without a lookup', async () => {
  const tokens = new MemoryTokens();
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  assert.throws(() => verifier.verify(TOKEN), isStatus(401));
  assert.equal(tokens.lookups.length, 1);
  for (const bad of [`${TOKEN}x`, TOKEN.slice(0, -1), `pst_${'!'.repeat(43)}`]) {
    assert.equal(verifier.accepts(bad), true, 'a malformed pst_ token is still ours to refuse, never another verifier\'s');
    assert.throws(() => verifier.verify(bad), isStatus(401));
  }
  assert.equal(tokens.lookups.length, 1, 'malformed tokens never reach the store');
});

test('Authenticator checks the scope of values and of promises alike', async () => {
  for (const Store of [MemoryTokens, RemoteTokens]) {
    const tokens = new Store();
    tokens.add(TOKEN, 'ana');
    const authenticator = new Authenticator([new ApiTokenVerifier(tokens, touchFailed)]);
    assert.equal((await authenticator.authorize(`Bearer ${TOKEN}`, 'plants:read')).owner, 'ana');
    await assert.rejects(async () => authenticator.authorize(`Bearer ${TOKEN}`, 'plants:write'), isStatus(403), Store.name);
    assert.throws(() => authenticator.authorize(undefined, 'plants:read'), isStatus(401));
  }
});

test('a known token is not looked up again but handed on, for the store to check with its own read', async () => {
  const tokens = new RemoteTokens();
  const record = tokens.add(TOKEN, 'ana');
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  const first = await verifier.verify(TOKEN);
  assert.equal(first.pending, undefined, 'just looked up: nothing left to check');
  const second = await verifier.verify(TOKEN);
  assert.equal(second.owner, 'ana');
  assert.equal(second.pending?.digest, digestToken(TOKEN));
  assert.equal(tokens.lookups.length, 1, 'one lookup for two verifications');
  await second.pending?.confirm();
  record.revokedAt = new Date();
  await assert.rejects(async () => second.pending?.confirm(), isStatus(401), 'confirm looks the token up now');
  const lookups = tokens.lookups.length;
  await assert.rejects(async () => verifier.verify(TOKEN), isStatus(401));
  assert.equal(tokens.lookups.length, lookups + 1, 'a token found revoked is forgotten and looked up again');
});

test('a known token past its expiry is refused without a lookup', async () => {
  const tokens = new RemoteTokens();
  const record = tokens.add(TOKEN, 'ana');
  // Wide enough that a busy machine does not let it expire before the first verify.
  record.expiresAt = new Date(Date.now() + 500);
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  await verifier.verify(TOKEN);
  await new Promise((done) => setTimeout(done, 520));
  assert.throws(() => verifier.verify(TOKEN), isStatus(401));
  assert.equal(tokens.lookups.length, 1);
});

test('a known token lacking the scope is confirmed first: 401 when revoked, 403 when valid', async () => {
  const tokens = new RemoteTokens();
  const record = tokens.add(TOKEN, 'ana');
  const authenticator = new Authenticator([new ApiTokenVerifier(tokens, touchFailed)]);
  await authenticator.authorize(`Bearer ${TOKEN}`, 'plants:read');
  await assert.rejects(async () => authenticator.authorize(`Bearer ${TOKEN}`, 'plants:write'), isStatus(403));
  record.revokedAt = new Date();
  await assert.rejects(async () => authenticator.authorize(`Bearer ${TOKEN}`, 'plants:write'), isStatus(401));
});

/** Counts the "last used" writes the verifier asks of the store. */
class TouchCountingTokens extends MemoryTokens {
  touches = 0;
  override async touchToken(): Promise<void> {
    this.touches++;
  }
}

test('"last used" is written at most once a minute per token, however often it is used', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  const tokens = new TouchCountingTokens();
  tokens.add(TOKEN, 'ana');
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  for (let i = 0; i < 5; i++) verifier.verify(TOKEN);
  assert.equal(tokens.touches, 1);
  t.mock.timers.tick(59_999);
  verifier.verify(TOKEN);
  assert.equal(tokens.touches, 1);
  t.mock.timers.tick(1);
  verifier.verify(TOKEN);
  assert.equal(tokens.touches, 2);
});

test('a token whose expiry is now is refused, as on its first use as after', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  const tokens = new MemoryTokens();
  tokens.add(TOKEN, 'ana').expiresAt = new Date(1_000_000);
  assert.throws(() => new ApiTokenVerifier(tokens, touchFailed).verify(TOKEN), isStatus(401));
  const other = `pst_${'b'.repeat(43)}`;
  tokens.add(other, 'bo').expiresAt = new Date(1_000_001);
  const verifier = new ApiTokenVerifier(tokens, touchFailed);
  verifier.verify(other);
  t.mock.timers.tick(1);
  assert.throws(() => verifier.verify(other), isStatus(401));
});

test('the tokens remembered are bounded: past 10,000 the memory starts again, and a token is looked up anew', () => {
  const tokens = new MemoryTokens();
  const verifier = new ApiTokenVerifier(tokens, () => {});
  const tokenNumber = (i: number) => `pst_${i.toString().padStart(43, '0')}`;
  for (let i = 0; i <= 10_000; i++) {
    tokens.add(tokenNumber(i), `user${i}`);
    verifier.verify(tokenNumber(i));
  }
  const lookups = tokens.lookups.length;
  verifier.verify(tokenNumber(0));
  assert.equal(tokens.lookups.length, lookups + 1);
});

test('an expiry may be the last millisecond of the year 9999, not one later', () => {
  const latest = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
  assert.equal(expiryAfter(new Date(latest - 1000), 1000)?.getTime(), latest);
  assert.equal(expiryAfter(new Date(latest - 1000), 1001), undefined);
});
