import { StoreUnavailableError } from '../../errors.js';

/** Runs SQLite work, mapping its failures (busy, I/O, disk full) to "unavailable": never the client's fault. */
export function mapSqliteErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_')) {
      throw new StoreUnavailableError(`SQLite failed (${String(error.code)}): ${error.message}`, { cause: error });
    }
    throw error;
  }
}
