/** PostgreSQL migrations: applied at every open, bounded while they wait for another instance, not while they run. */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/store/open-store.js';
import { MIGRATION_LOCK, migrate } from '../../src/store/postgres/migrations.js';
import { createPool } from '../../src/store/postgres/pool.js';
import { postgresUrlOrSkipReason } from '../helpers/server.js';
import { storeFactories } from './store-factories.js';

const postgres = postgresUrlOrSkipReason();

/** A fresh database, a pool on it, and an outside session in a transaction that `hold` begins with. */
async function heldDatabase(t: TestContext, hold: string, values: unknown[] = []) {
  const url = await postgresFactory().freshUrl(t);
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  t.after(() => holder.end());
  await holder.query('BEGIN');
  await holder.query(hold, values);
  const pool = createPool({ url, size: 1 });
  t.after(() => pool.end());
  return { holder, pool };
}

function postgresFactory() {
  const factory = storeFactories().find((candidate) => candidate.kind === 'postgres');
  return factory as NonNullable<typeof factory>;
}

test('a migration that runs longer than the wait limit is not cancelled', { skip: postgres.reason }, async (t) => {
  // An uncommitted table of the same name makes the first migration's CREATE TABLE wait, as a
  // long one would run.
  const { holder, pool } = await heldDatabase(t, 'CREATE TABLE plants (owner text)');

  const waitLimitMs = 300;
  const migrating = migrate(pool, waitLimitMs);
  await new Promise((resolve) => setTimeout(resolve, waitLimitMs * 4));
  await holder.query('ROLLBACK');
  assert.equal(await migrating, 2);
  const { rows } = await pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  assert.deepEqual(rows.map((row) => row.version), [1, 2]);
});

test('waiting for another instance\'s migration gives up after the wait limit', { skip: postgres.reason }, async (t) => {
  const { pool } = await heldDatabase(t, 'SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);

  const startedAt = Date.now();
  await assert.rejects(migrate(pool, 300));
  assert.ok(Date.now() - startedAt < 3_000);
});

test('opening the store migrates it, whether or not anyone listens for the count', { skip: postgres.reason }, async (t) => {
  const factory = postgresFactory();
  for (const onMigrated of [undefined, (applied: number) => assert.equal(applied, 2)]) {
    const url = await factory.freshUrl(t);
    const store = await openStore({ databaseUrl: url, databasePoolSize: 1, onMigrated });
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.after(() => client.end());
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(rows.map((row) => row.version), [1, 2]);
  }
});
