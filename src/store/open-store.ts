import type { Store } from './store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { sqlitePath } from './sqlite/connection.js';

export interface StoreOptions {
  databaseUrl: string;
  databasePoolSize: number;
}

/** Opens the store that DATABASE_URL names and applies pending migrations. */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl.startsWith('sqlite:')) {
    const store = new SqliteStore(sqlitePath(options.databaseUrl));
    await store.migrate();
    return store;
  }
  throw new Error('PostgreSQL support is not built yet');
}
