/** The PostgreSQL pool's connections: every one commits synchronously, at READ COMMITTED, whatever DATABASE_URL or the database's defaults ask. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore } from '../../src/store/open-store.js';
import { MIGRATION_LOCK } from '../../src/store/postgres/migrations.js';
import { createPool } from '../../src/store/postgres/pool.js';
import { FIRST_TOKEN_LOCK } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { postgresUrlOrSkipReason } from '../helpers/server.js';
import { storeFactories } from './store-factories.js';

const postgres = postgresUrlOrSkipReason();

test('synchronous_commit is on and transactions READ COMMITTED even when the URL options say otherwise; its other options stay', { skip: postgres.reason }, async () => {
  const url = new URL(postgres.url as string);
  url.searchParams.set('options', '-c synchronous_commit=off -c default_transaction_isolation=serializable -c search_path=pg_catalog');
  const pool = createPool({ url: url.toString(), size: 1 });
  try {
    const { rows } = await pool.query<{ sync: string; isolation: string; path: string; app: string }>(
      "SELECT current_setting('synchronous_commit') AS sync, current_setting('transaction_isolation') AS isolation, current_setting('search_path') AS path, current_setting('application_name') AS app",
    );
    assert.deepEqual(rows[0], { sync: 'on', isolation: 'read committed', path: 'pg_catalog', app: 'plantstore' });
  } finally {
    await pool.end();
  }
});

test('where the default is REPEATABLE READ, instances starting at once migrate once and make one first token', { skip: postgres.reason }, async (t) => {
  const postgresFactory = storeFactories().find((factory) => factory.kind === 'postgres');
  const url = new URL(await (postgresFactory as NonNullable<typeof postgresFactory>).freshUrl(t));
  // As a database or role default would: the URL's options come before the pool's own.
  url.searchParams.set('options', `${url.searchParams.get('options') ?? ''} -c default_transaction_isolation=repeatable\\ read`);
  const databaseUrl = url.toString();
  // An outside session holds both locks, so that every instance is waiting when they are let go.
  const holder = new pg.Client({ connectionString: postgres.url });
  await holder.connect();
  t.after(() => holder.end());
  await holder.query('SELECT pg_advisory_lock($1::bigint), pg_advisory_lock($2::bigint)', [MIGRATION_LOCK, FIRST_TOKEN_LOCK]);
  const letGo = async (lock: string) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.query('SELECT pg_advisory_unlock($1::bigint)', [lock]);
  };

  const opening = Array.from({ length: 3 }, () => openStore({ databaseUrl, databasePoolSize: 2 }));
  await letGo(MIGRATION_LOCK);
  const opened = await Promise.allSettled(opening);
  const stores = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  t.after(() => Promise.all(stores.map((store) => store.close())));
  assert.deepEqual(opened.map((result) => (result.status === 'rejected' ? String(result.reason) : 'opened')), ['opened', 'opened', 'opened']);

  const creating = stores.map((store: Store) =>
    store.createFirstToken({ id: `tok_${randomBytes(6).toString('hex')}`, digest: randomBytes(32).toString('hex'), user: 'admin', scopes: ['plants:read', 'plants:write'], createdAt: new Date(), expiresAt: null }),
  );
  await letGo(FIRST_TOKEN_LOCK);
  assert.deepEqual((await Promise.all(creating)).filter(Boolean), [true]);
  assert.equal((await (stores[0] as Store).listTokens()).length, 1);
});
