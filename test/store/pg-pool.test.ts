/** The PostgreSQL pool's connections: every one commits synchronously, whatever DATABASE_URL asks. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPool } from '../../src/store/postgres/pool.js';
import { postgresUrlOrSkipReason } from '../helpers/server.js';

const postgres = postgresUrlOrSkipReason();

test('synchronous_commit is on even when the URL options turn it off; its other options stay', { skip: postgres.reason }, async () => {
  const url = new URL(postgres.url as string);
  url.searchParams.set('options', '-c synchronous_commit=off -c search_path=pg_catalog');
  const pool = createPool({ url: url.toString(), size: 1 });
  try {
    const { rows } = await pool.query<{ sync: string; path: string; app: string }>(
      "SELECT current_setting('synchronous_commit') AS sync, current_setting('search_path') AS path, current_setting('application_name') AS app",
    );
    assert.deepEqual(rows[0], { sync: 'on', path: 'pg_catalog', app: 'plantstore' });
  } finally {
    await pool.end();
  }
});
