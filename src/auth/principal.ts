import type { Scope } from '../store/store.js';
import type { MaybePromise } from '../util/maybe-promise.js';

export type { Scope };
export const READ: Scope = 'plants:read';
export const WRITE: Scope = 'plants:write';

/** Who is calling: the owner whose plants it may touch, and what it may do. */
export interface Principal {
  readonly owner: string;
  readonly scopes: ReadonlySet<string>;
}

/** One kind of credential (API token, JWT). `accepts` looks only at the token's shape. */
export interface CredentialVerifier {
  accepts(token: string): boolean;
  /** The caller, or an ApiError thrown or rejected (401 invalid_token, 503 when a dependency is down). */
  verify(token: string): MaybePromise<Principal>;
}
