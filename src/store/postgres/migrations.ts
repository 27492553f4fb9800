/**
 * Versioned schema changes for PostgreSQL, applied in order, each once, under an advisory lock
 * so that many instances starting at once apply each migration exactly once.
 */
import type pg from 'pg';
import { StartError, refuseNewerSchema } from '../../start-failure.js';
import { inTransaction } from './pool.js';

/** Never edit a released migration: add the next one. */
const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    // Every plant query names its owner, so (owner, id) is the key and owner the natural
    // distribution column on Citus, CockroachDB or YugabyteDB.
    sql: `
      CREATE TABLE plants (
        owner text NOT NULL,
        id bigint NOT NULL,
        name text NOT NULL,
        tag text,
        PRIMARY KEY (owner, id)
      );
      CREATE TABLE api_tokens (
        id text PRIMARY KEY,
        digest bytea NOT NULL UNIQUE,
        user_name text NOT NULL,
        scopes text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz,
        last_used_at timestamptz,
        revoked_at timestamptz
      );
    `,
  },
  {
    version: 2,
    // GET /plants?tag=: an owner's plants of one tag, in id order.
    sql: 'CREATE INDEX plants_by_tag ON plants (owner, tag, id);',
  },
];
const NEWEST = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** pg_advisory_xact_lock key for migrations: the ASCII of "plntmigr". */
export const MIGRATION_LOCK = '8100971276063565682';
/**
 * The bound of every statement here but the migrations' own: chiefly the wait for another
 * instance's migration, which may outlast a request's bounds; past it the start is retried.
 */
const WAIT_LIMIT_MS = 120_000;
/** pg takes a query_timeout of 0 as "the pool's"; this is setTimeout's longest. */
const UNBOUNDED_MS = 2 ** 31 - 1;

/** Applies pending migrations in one transaction; returns how many ran. */
export async function migrate(pool: pg.Pool, waitLimitMs = WAIT_LIMIT_MS): Promise<number> {
  return inTransaction(pool, async (client) => {
    const run = (text: string, values: unknown[] = [], timeoutMs = waitLimitMs) => {
      // pg reads a per-query query_timeout that its types do not declare.
      const config: pg.QueryConfig & { query_timeout: number } = { text, values, query_timeout: timeoutMs };
      return client.query(config);
    };
    await run(`SET LOCAL statement_timeout = ${waitLimitMs}`);
    // Held until COMMIT: a second instance waits here, then finds nothing pending.
    await run('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    // Names and tags are any Unicode text: another encoding would refuse some of them with a 400.
    const { encoding } = (await run("SELECT current_setting('server_encoding') AS encoding")).rows[0] as { encoding: string };
    if (encoding !== 'UTF8') {
      throw new StartError(`the database's encoding is ${encoding}, which cannot hold every name and tag: plantstore needs a UTF8 database (createdb -E UTF8 -T template0)`);
    }
    await run('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const current = await run('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
    const applied = Number(current.rows[0]?.version ?? 0);
    refuseNewerSchema(applied, NEWEST);
    const pending = MIGRATIONS.filter((migration) => migration.version > applied);
    // A migration may index or rewrite a large table: a timeout would cancel it at every start.
    if (pending.length > 0) await run('SET LOCAL statement_timeout = 0');
    for (const migration of pending) {
      await run(migration.sql, [], UNBOUNDED_MS);
      await run('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
    }
    return pending.length;
  });
}
