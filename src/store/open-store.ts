/** Opens the store that DATABASE_URL names. */
import type { Registry } from 'prom-client';
import type { EndOfTurn } from '../util/end-of-turn.js';
import type { Store } from './store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { sqlitePath } from './sqlite/connection.js';

export interface StoreOptions {
  databaseUrl: string;
  databasePoolSize: number;
  /** Told when an idle PostgreSQL connection breaks, or SQLite's writer thread dies; the store reconnects by itself. */
  onConnectionError?: (error: Error) => void;
  /** Where a PostgreSQL store shows its connection pool figures. */
  registry?: Registry;
  /** The server's end-of-turn steps: SQLite hands each turn's writes to its writer thread and ends the turn's reads there, PostgreSQL sends the turn's statements. */
  endOfTurn?: EndOfTurn;
  /** Told of each group commit (SQLite: every write; PostgreSQL: plant creates): how many writes it held, and the seconds it took. */
  onWriteBatch?: (size: number, seconds: number) => void;
  /** SQLite: most snapshot connections open at once for streamed lists (STREAMS_PER_PROCESS). */
  streamConnections?: number;
  /** Told how many schema migrations opening applied: 0 when the schema was up to date. */
  onMigrated?: (applied: number) => void;
}

/** Opens the store that DATABASE_URL names and applies pending migrations. */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl.startsWith('sqlite:')) {
    return SqliteStore.open(sqlitePath(options.databaseUrl), options);
  }
  // Loaded only here, so that SQLite deployments never load the pg driver.
  const { PostgresStore } = await import('./postgres/postgres-store.js');
  const store = new PostgresStore({
    url: options.databaseUrl,
    size: options.databasePoolSize,
    onConnectionError: options.onConnectionError,
    onWriteBatch: options.onWriteBatch,
    endOfTurn: options.endOfTurn,
  });
  try {
    const applied = await store.migrate(); // not inside `?.()`, which would skip it with no listener
    options.onMigrated?.(applied);
  } catch (error) {
    await store.close();
    throw error;
  }
  if (options.registry !== undefined) {
    const { registerPoolMetrics } = await import('./postgres/pool-metrics.js');
    registerPoolMetrics(options.registry, () => store.poolStats);
  }
  return store;
}
