import type { Scope, TokenCheck } from '../store/store.js';
import type { MaybePromise } from '../util/maybe-promise.js';

export type { Scope };
export const READ: Scope = 'plants:read';
export const WRITE: Scope = 'plants:write';

/**
 * A token whose revocation the store checks with the request's own work. Whatever answers the
 * request before the store (a 400, a 403) must first `confirm` it: a revoked token gets its 401 first.
 */
export interface PendingToken extends TokenCheck {
  /** Checks the token now; throws the 401 when it is no longer valid. */
  confirm(): MaybePromise<void>;
  /** The store refused the token: the next request with it is looked up in full, and refused before anything else. */
  forget(): void;
}

/** Who is calling: the owner whose plants it may touch, and what it may do. */
export interface Principal {
  readonly owner: string;
  readonly scopes: ReadonlySet<string>;
  /** Set when the token is not yet checked for this request: hand it to the store. */
  readonly pending?: PendingToken;
}

/** One kind of credential (API token, JWT). `accepts` looks only at the token's shape. */
export interface CredentialVerifier {
  accepts(token: string): boolean;
  /** The caller, or an ApiError thrown or rejected (401 invalid_token, 503 when a dependency is down). */
  verify(token: string): MaybePromise<Principal>;
}
