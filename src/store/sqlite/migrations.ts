import type Database from 'better-sqlite3';
import { refuseNewerSchema } from '../../start-failure.js';

/** Versioned schema changes, applied in order, each once. Never edit a released one: add the next. */
const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE plants (
        owner TEXT NOT NULL,
        id INTEGER NOT NULL,
        name TEXT NOT NULL,
        tag TEXT,
        PRIMARY KEY (owner, id)
      ) WITHOUT ROWID;
      CREATE TABLE api_tokens (
        id TEXT PRIMARY KEY,
        digest BLOB NOT NULL UNIQUE,
        user_name TEXT NOT NULL,
        scopes TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        last_used_at INTEGER,
        revoked_at INTEGER
      );
    `,
  },
  {
    version: 2,
    sql: 'CREATE INDEX plants_by_tag ON plants (owner, tag, id);',
  },
];
const NEWEST = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** Applies pending migrations inside one immediate transaction; returns how many ran. */
export function migrate(db: Database.Database): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const apply = db.transaction(() => {
    const row = db.prepare('SELECT coalesce(max(version), 0) AS version FROM schema_migrations').get() as { version: bigint };
    refuseNewerSchema(Number(row.version), NEWEST);
    const pending = MIGRATIONS.filter((migration) => BigInt(migration.version) > row.version);
    for (const migration of pending) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, Date.now());
    }
    return pending.length;
  });
  return apply.immediate();
}
