/**
 * The stores the contract test runs against: SQLite on a fresh file, and PostgreSQL (when
 * TEST_DATABASE_URL is set) in a fresh schema, so each test starts from empty tables even
 * though every test shares one database.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { postgresUrlOrSkipReason, tempDir, type StoreKind } from '../helpers/server.js';

export interface StoreFactory {
  kind: StoreKind;
  /** Set when this store cannot run here; the suite is skipped with this reason. */
  skip: string | undefined;
  /** A database URL for an empty database of this kind, dropped after the test. */
  freshUrl(t: TestContext): Promise<string>;
  /** A migrated store on a fresh database, closed after the test. */
  open(t: TestContext, options?: { url?: string; poolSize?: number }): Promise<Store>;
}

/** A new schema in the test database, and a URL whose connections use it. */
async function freshSchemaUrl(t: TestContext, baseUrl: string): Promise<string> {
  const schema = `plantstore_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  t.after(async () => {
    const cleaner = new pg.Client({ connectionString: baseUrl });
    await cleaner.connect();
    try {
      await cleaner.query(`DROP SCHEMA ${schema} CASCADE`);
    } finally {
      await cleaner.end();
    }
  });
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

function factory(kind: StoreKind, skip: string | undefined, freshUrl: (t: TestContext) => Promise<string>): StoreFactory {
  return {
    kind,
    skip,
    freshUrl,
    async open(t, options = {}) {
      const store = await openStore({ databaseUrl: options.url ?? (await freshUrl(t)), databasePoolSize: options.poolSize ?? 4 });
      t.after(() => store.close());
      return store;
    },
  };
}

export function storeFactories(): StoreFactory[] {
  const postgres = postgresUrlOrSkipReason();
  return [
    factory('sqlite', undefined, async (t) => `sqlite:${join(tempDir(t), 'plantstore.db')}`),
    factory('postgres', postgres.reason, (t) => freshSchemaUrl(t, postgres.url as string)),
  ];
}
