import { StoreUnavailableError } from '../../errors.js';

/** Turns SQLite's failures (busy, I/O, disk full) into "unavailable": never the client's fault. */
export function guard<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_')) {
      throw new StoreUnavailableError(`SQLite failed (${String(error.code)}): ${error.message}`, { cause: error });
    }
    throw error;
  }
}
