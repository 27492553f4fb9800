import type { TokenRecord } from '../store.js';

const MAX_ENTRIES = 10_000;

/**
 * Token rows kept while no other connection has committed. PRAGMA data_version moves whenever
 * another process (`plantstore token revoke`, another worker) commits; then everything is
 * dropped, so a revocation still counts on the next request. The store drops it after its own
 * token writes. Unknown tokens are never cached: a flood of them must not fill it.
 */
export class TokenCache {
  private readonly records = new Map<string, TokenRecord>();
  private version = -1n;

  /** The cached record, or `load()`'s; `dataVersion` is the connection's current PRAGMA data_version. */
  get(digest: Buffer, dataVersion: bigint, load: () => TokenRecord | undefined): TokenRecord | undefined {
    if (dataVersion !== this.version) {
      this.records.clear();
      this.version = dataVersion;
    }
    const key = digest.toString('latin1');
    const cached = this.records.get(key);
    if (cached !== undefined) return cached;
    const record = load();
    if (record === undefined) return undefined;
    if (this.records.size >= MAX_ENTRIES) this.records.clear();
    this.records.set(key, record);
    return record;
  }

  clear(): void {
    this.records.clear();
  }
}
