import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** The file path inside a sqlite:<path> URL. */
export function sqlitePath(databaseUrl: string): string {
  return databaseUrl.slice('sqlite:'.length);
}

/**
 * Opens a connection with the settings every plantstore connection shares: WAL so readers
 * never wait for the writer; synchronous=FULL, so a commit is on disk before it returns and
 * before any other connection can see it (docs/decisions.md, "Durability"); a busy timeout for
 * other processes' writes; int64 columns as bigint.
 */
export function openConnection(path: string, options: { readonly?: boolean } = {}): Database.Database {
  if (!options.readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly: options.readonly ?? false });
  db.pragma('busy_timeout = 5000');
  if (!options.readonly) db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.defaultSafeIntegers(true);
  return db;
}
