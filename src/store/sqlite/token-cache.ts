import type { TokenRecord } from '../store.js';

const MAX_ENTRIES = 10_000;

/**
 * Token rows kept while no other connection has committed. The store clears it when PRAGMA
 * data_version moves (another process, say `plantstore token revoke`, committed) and after its
 * own token writes, so a revocation still counts on the next request. Unknown tokens are never
 * cached: a flood of them must not fill it.
 */
export class TokenCache {
  private readonly records = new Map<string, TokenRecord>();

  get(key: string): TokenRecord | undefined {
    return this.records.get(key);
  }

  /** Keeps a record the database returned (never an absent one). */
  set(key: string, record: TokenRecord): void {
    if (this.records.size >= MAX_ENTRIES) this.records.clear();
    this.records.set(key, record);
  }

  clear(): void {
    this.records.clear();
  }
}
