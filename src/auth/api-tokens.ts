/**
 * plantstore's own API tokens: `pst_` and 43 base64url characters (32 random bytes).
 * Only the SHA-256 digest is stored; the token itself is shown once and never kept.
 */
import * as crypto from 'node:crypto';
import { errors } from '../errors.js';
import type { TokenRecord, TokenStore } from '../store/store.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { READ, WRITE, type CredentialVerifier, type Principal, type Scope } from './principal.js';

const TOKEN_PREFIX = 'pst_';
const TOKEN_SHAPE = /^pst_[A-Za-z0-9_-]{43}$/;
const TOKEN_ID_SHAPE = /^tok_[0-9a-f]{12}$/;
const TOUCH_INTERVAL_MS = 60_000;

/** Whether `text` is (or starts like) a plantstore token, a secret not to be echoed. */
export function isApiToken(text: string): boolean {
  return text.startsWith(TOKEN_PREFIX);
}

/** Whether `text` has the shape of a token id (what `token list` shows and `token revoke` takes). */
export function isTokenId(text: string): boolean {
  return TOKEN_ID_SHAPE.test(text);
}

/** The SHA-256 digest of a token, hex; crypto.hash (Node ≥ 20.12) where it exists, for it is the cheaper call. */
export const digestToken: (token: string) => string =
  typeof crypto.hash === 'function'
    ? (token) => crypto.hash('sha256', token, 'hex')
    : (token) => crypto.createHash('sha256').update(token).digest('hex');

export interface IssuedToken {
  token: string;
  record: TokenRecord;
}

export interface IssueOptions {
  user: string;
  readOnly?: boolean;
  expiresInMs?: number;
  /** Store it only when the store holds no token yet (the first-start admin token). */
  onlyIfFirst?: boolean;
}

/** Creates and stores a token; undefined when onlyIfFirst and a token already exists. */
export async function issueToken(store: TokenStore, options: IssueOptions): Promise<IssuedToken | undefined> {
  const token = `${TOKEN_PREFIX}${crypto.randomBytes(32).toString('base64url')}`;
  const now = new Date();
  const scopes: Scope[] = options.readOnly === true ? [READ] : [READ, WRITE];
  const expiresAt = options.expiresInMs === undefined ? null : expiryAfter(now, options.expiresInMs);
  if (expiresAt === undefined) throw new RangeError(`a token cannot expire after ${LATEST_EXPIRY.toISOString()}`);
  const record = {
    id: `tok_${crypto.randomBytes(6).toString('hex')}`,
    digest: digestToken(token),
    user: options.user,
    scopes,
    createdAt: now,
    expiresAt,
  };
  if (options.onlyIfFirst === true) {
    if (!(await store.createFirstToken(record))) return undefined;
  } else {
    await store.createToken(record);
  }
  const { digest, ...shown } = record;
  return { token, record: { ...shown, lastUsedAt: null, revokedAt: null } };
}

/** The last moment a token may expire: both stores and ISO 8601's four-digit years end here. */
const LATEST_EXPIRY = new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999));

/** When a token issued at `now` for `lifetimeMs` expires; undefined when that is past LATEST_EXPIRY. */
export function expiryAfter(now: Date, lifetimeMs: number): Date | undefined {
  const expiry = now.getTime() + lifetimeMs;
  return expiry > LATEST_EXPIRY.getTime() ? undefined : new Date(expiry);
}

/**
 * What is remembered of a token seen before: what never changes about it (enough to answer a
 * request before its revocation is checked), and when its use was last recorded.
 */
interface KnownToken {
  id: string;
  expiresAt: number | null;
  touchedAt: number;
  /** The caller, with the revocation check left to the store: the same for every request. */
  principal: Principal;
}

/** Tokens remembered at most; the memory is cleared when full. */
const MAX_KNOWN_TOKENS = 10_000;

/**
 * Verifies `pst_` tokens. The first use of a token looks it up in the store; after that its
 * owner, scopes and expiry are known (they cannot change) and its revocation is left to the
 * store's work for each request (Principal.pending), so a revocation still counts at once.
 */
export class ApiTokenVerifier implements CredentialVerifier {
  /** By digest. */
  private readonly known = new Map<string, KnownToken>();

  constructor(
    private readonly store: TokenStore,
    private readonly onTouchFailed: (error: unknown) => void,
  ) {}

  accepts(token: string): boolean {
    return isApiToken(token);
  }

  verify(token: string): MaybePromise<Principal> {
    if (!TOKEN_SHAPE.test(token)) throw errors.invalidToken();
    const digest = digestToken(token);
    const known = this.known.get(digest);
    if (known !== undefined) return this.knownPrincipal(known, digest);
    return andThen(this.store.findTokenByDigest(digest), (record) => this.admit(record, digest));
  }

  /** Checks a known token's revocation now (its expiry was checked as it was accepted); throws 401 when revoked. */
  private confirm(digest: string): MaybePromise<void> {
    return andThen(this.store.isTokenValid(digest), (valid) => {
      if (!valid) this.refuse(digest);
    });
  }

  /** The caller a record stands for; a missing, revoked or expired one is refused. */
  private admit(record: TokenRecord | undefined, digest: string): Principal {
    const now = Date.now();
    if (!isUsable(record, now)) this.refuse(digest);
    let known = this.known.get(digest);
    if (known === undefined) {
      if (this.known.size >= MAX_KNOWN_TOKENS) this.known.clear();
      const pending = { digest, confirm: () => this.confirm(digest), forget: () => this.known.delete(digest) };
      const principal = { owner: record.user, scopes: new Set<string>(record.scopes), pending };
      known = { id: record.id, expiresAt: record.expiresAt?.getTime() ?? null, touchedAt: 0, principal };
      this.known.set(digest, known);
    }
    this.touch(known, now);
    return { owner: known.principal.owner, scopes: known.principal.scopes };
  }

  /** The caller of a token seen before, its revocation left to the store's statement. */
  private knownPrincipal(known: KnownToken, digest: string): Principal {
    const now = Date.now();
    if (known.expiresAt !== null && known.expiresAt <= now) this.refuse(digest);
    this.touch(known, now);
    return known.principal;
  }

  /** Forgets a token that is no longer valid and refuses the request. */
  private refuse(digest: string): never {
    this.known.delete(digest);
    throw errors.invalidToken();
  }

  /**
   * Records "last used" at most once a minute per token. The request does not wait for it, but
   * it is a write: on SQLite it joins the turn's batch for the writer thread.
   */
  private touch(known: KnownToken, now: number): void {
    if (now - known.touchedAt < TOUCH_INTERVAL_MS) return;
    known.touchedAt = now;
    this.store.touchToken(known.id, new Date(now)).catch(this.onTouchFailed);
  }
}

/** Whether the token is still accepted: stored, not revoked and not expired at `now`. */
export function isUsable(record: TokenRecord | undefined, now: number): record is TokenRecord {
  return record !== undefined && record.revokedAt === null && (record.expiresAt === null || record.expiresAt.getTime() > now);
}
