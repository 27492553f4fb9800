/**
 * The storage interface. SQLite (store/sqlite) and PostgreSQL (store/postgres) fill it and
 * pass one shared contract test. Every plant query names its owner, which leads every plant key.
 * Plant and token lookups return a value or a promise (MaybePromise): the SQLite store answers
 * reads at once and writes once their commit is on disk; PostgreSQL always with a promise.
 */
import type { PlantFields, StoredPlant } from '../plants/plant.js';
import type { MaybePromise } from '../util/maybe-promise.js';

export type Scope = 'plants:read' | 'plants:write';

/** An API token as stored: only the SHA-256 digest of the secret, never the secret. */
export interface TokenRecord {
  id: string;
  user: string;
  scopes: Scope[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface NewTokenRecord extends Omit<TokenRecord, 'lastUsedAt' | 'revokedAt'> {
  /** SHA-256 of the token, hex. */
  digest: string;
}

/** created: stored now; unchanged: the same plant was already stored; conflict: another plant holds the id. */
export type CreateOutcome = 'created' | 'unchanged' | 'conflict';

export interface CreateResult {
  outcome: CreateOutcome;
  /** The plant as stored after the call. */
  stored: StoredPlant;
}

/** Which of an owner's plants a list wants: ids above `after`, with tag `tag`, at most `limit`. */
export interface ListQuery {
  after: bigint | undefined;
  tag: string | undefined;
  limit: number | undefined;
}

/** A page: at most `limit` plants, each shown with `fields`. */
export interface PageQuery extends ListQuery {
  /** 1 or more: the route answers `limit=0` without the store. */
  limit: number;
  fields: PlantFields;
}

/**
 * A page of plants read in one go, already as JSON: the store renders it, so that SQLite can
 * do so itself (docs/performance.md, "Pages rendered by SQLite").
 */
export interface PlantPage {
  /** The plants as plantJson shows them (plants/plant.ts), separated by commas: the members of the response's array. */
  readonly members: string;
  /** The id of the page's last plant when more plants follow it: where the next page starts. */
  readonly nextAfter: bigint | undefined;
}

/**
 * A long read of one owner's plants from one consistent snapshot, read in chunks so
 * memory stays flat. Always closed, also when the client goes away.
 */
export interface PlantStream {
  /** Set when `limit` cut the list short: the id of the last plant the stream yields, where the next page starts. */
  readonly nextAfter: bigint | undefined;
  /** The next chunk of at most `max` plants; empty when done. */
  next(max: number): MaybePromise<StoredPlant[]>;
  close(): MaybePromise<void>;
}

/**
 * An API token whose owner and scopes are known but whose revocation was not yet checked for
 * this request. A store that takes it checks it before or with the plant work and throws the
 * 401 invalid_token ApiError, having changed nothing, when the token is no longer stored
 * unrevoked.
 */
export interface TokenCheck {
  /** SHA-256 of the token, hex. */
  readonly digest: string;
}

/**
 * Every read and delete takes the caller's unchecked token, if any, as its last argument, and
 * checks it with its own work (docs/architecture.md, "One request, end to end"). A create comes
 * with its token checked: the token is confirmed before the request's body is read.
 */
export interface PlantStore {
  createPlant(owner: string, plant: StoredPlant): MaybePromise<CreateResult>;
  getPlant(owner: string, id: bigint, token?: TokenCheck): MaybePromise<StoredPlant | undefined>;
  /** Plants matching the query, ascending by id, at most `limit` (which must be small). */
  listPlants(owner: string, query: PageQuery, token?: TokenCheck): MaybePromise<PlantPage>;
  streamPlants(owner: string, query: ListQuery, token?: TokenCheck): MaybePromise<PlantStream>;
  /** True when the plant existed and is now deleted. */
  deletePlant(owner: string, id: bigint, token?: TokenCheck): MaybePromise<boolean>;
}

export interface TokenStore {
  createToken(token: NewTokenRecord): Promise<void>;
  /** Creates the token only when no token exists at all; true when it did. */
  createFirstToken(token: NewTokenRecord): Promise<boolean>;
  findTokenByDigest(digest: string): MaybePromise<TokenRecord | undefined>;
  /** Whether the token with this digest is stored and not revoked (its expiry is the caller's to check). */
  isTokenValid(digest: string): MaybePromise<boolean>;
  listTokens(): Promise<TokenRecord[]>;
  /** True when an unrevoked token with this id existed and is now revoked. */
  revokeToken(id: string, at: Date): Promise<boolean>;
  /** Records use of an unrevoked token; at most about once a minute per token, not awaited on the request path. */
  touchToken(id: string, at: Date): Promise<void>;
}

export interface Store extends PlantStore, TokenStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Applies pending schema migrations; safe to run from several processes at once. */
  migrate(): Promise<number>;
  /** Resolves when the database answers; throws StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
