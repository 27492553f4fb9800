/**
 * plantstore's own API tokens: `pst_` and 43 base64url characters (32 random bytes).
 * Only the SHA-256 digest is stored; the token itself is shown once and never kept.
 */
import * as crypto from 'node:crypto';
import { errors } from '../errors.js';
import type { TokenRecord, TokenStore } from '../store/store.js';
import { READ, WRITE, type CredentialVerifier, type Principal, type Scope } from './principal.js';

const TOKEN_PREFIX = 'pst_';
const TOKEN_SHAPE = /^pst_[A-Za-z0-9_-]{43}$/;
/** `pst_` and 43 characters: checked before anything that reads the whole token. */
const TOKEN_LENGTH = TOKEN_PREFIX.length + 43;
const TOUCH_INTERVAL_MS = 60_000;
/** Tokens whose digest is remembered; past this many the memo starts over. */
const MAX_REMEMBERED_DIGESTS = 10_000;

/** The SHA-256 digest of a token, hex. crypto.hash (Node ≥ 20.12) is several times cheaper than createHash. */
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
  const record = {
    id: `tok_${crypto.randomBytes(6).toString('hex')}`,
    digest: digestToken(token),
    user: options.user,
    scopes,
    createdAt: now,
    expiresAt: options.expiresInMs === undefined ? null : new Date(now.getTime() + options.expiresInMs),
  };
  if (options.onlyIfFirst === true) {
    if (!(await store.createFirstToken(record))) return undefined;
  } else {
    await store.createToken(record);
  }
  const { digest, ...shown } = record;
  return { token, record: { ...shown, lastUsedAt: null, revokedAt: null } };
}

/** Parses `<n>s`, `<n>m`, `<n>h` or `<n>d` into milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,8})([smhd])$/.exec(text);
  if (match === null) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/**
 * Verifies `pst_` tokens against the store on every request, so a revocation counts at once.
 * The SHA-256 of a token that verified is remembered (its record is still looked up each time):
 * hashing was the costliest step of a cached lookup. Only tokens that were valid are kept, so
 * guesses cannot fill the memo.
 */
export class ApiTokenVerifier implements CredentialVerifier {
  private readonly lastTouched = new Map<string, number>();
  private readonly digests = new Map<string, string>();
  /** A store that caches its records hands out the same object again: so is its principal. */
  private readonly principals = new WeakMap<TokenRecord, Principal>();

  constructor(
    private readonly store: TokenStore,
    private readonly onTouchFailed: (error: unknown) => void,
  ) {}

  accepts(token: string): boolean {
    return token.startsWith(TOKEN_PREFIX);
  }

  async verify(token: string): Promise<Principal> {
    if (token.length !== TOKEN_LENGTH) throw errors.invalidToken();
    const remembered = this.digests.get(token);
    if (remembered === undefined && !TOKEN_SHAPE.test(token)) throw errors.invalidToken();
    const digest = remembered ?? digestToken(token);
    const principal = this.admit(token, await this.store.findTokenByDigest(digest));
    if (remembered === undefined) this.remember(token, digest);
    return principal;
  }

  /**
   * verify() without awaiting: the caller when the token's digest is remembered and the store has
   * its record in memory (a cache as current as the store's own lookup), else undefined.
   */
  verifyNow(token: string): Principal | undefined {
    if (token.length !== TOKEN_LENGTH) throw errors.invalidToken();
    const digest = this.digests.get(token);
    if (digest === undefined) return undefined;
    const record = this.store.cachedToken?.(digest);
    return record === undefined ? undefined : this.admit(token, record);
  }

  /** The caller a record stands for; a missing, revoked or expired one is refused and its token forgotten. */
  private admit(token: string, record: TokenRecord | undefined): Principal {
    const now = Date.now();
    if (record === undefined || record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt.getTime() <= now)) {
      this.digests.delete(token);
      throw errors.invalidToken();
    }
    this.touch(record.id, now);
    let principal = this.principals.get(record);
    if (principal === undefined) {
      principal = { owner: record.user, scopes: new Set(record.scopes) };
      this.principals.set(record, principal);
    }
    return principal;
  }

  /** How many tokens' digests are remembered (at most 10,000). */
  get rememberedDigests(): number {
    return this.digests.size;
  }

  private remember(token: string, digest: string): void {
    if (this.digests.size >= MAX_REMEMBERED_DIGESTS) this.digests.clear();
    this.digests.set(token, digest);
  }

  /** Records "last used" at most once a minute per token, off the request's path. */
  private touch(id: string, now: number): void {
    if (now - (this.lastTouched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(id, now);
    this.store.touchToken(id, new Date(now)).catch(this.onTouchFailed);
  }
}
