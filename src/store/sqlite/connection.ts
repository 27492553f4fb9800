import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Creates `folder` and any missing parent, readable by their owner only. Not mkdirSync's
 * `recursive`, which loops forever on a folder that can be neither made nor found (under /proc).
 */
export function createPrivateFolder(folder: string): void {
  if (existsSync(folder)) return;
  const parent = dirname(folder);
  if (parent !== folder) createPrivateFolder(parent);
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // made meanwhile by another process
  }
}

/** Failures to create the file that SQLite's own open then meets and explains. */
const EXPLAINED_BY_OPEN = new Set(['EEXIST', 'EACCES', 'ENOENT', 'ENOTDIR', 'EISDIR', 'EROFS']);

/**
 * Creates the database file empty, readable and writable by its owner only, unless it exists:
 * SQLite gives the -wal and -shm files the database's mode, and a new database must not let
 * other users read every owner's plants. An existing file is never opened here: closing any
 * descriptor of a file drops every SQLite lock this process holds on it.
 */
function createPrivateFile(path: string): void {
  // `wx` does not follow a link: a link to a file not made yet has the file made through it.
  const linkToNothing = lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true && !existsSync(path);
  try {
    closeSync(openSync(path, linkToNothing ? constants.O_WRONLY | constants.O_CREAT : 'wx', 0o600));
  } catch (error) {
    if (!EXPLAINED_BY_OPEN.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}

/** The file path inside a sqlite:<path> URL. */
export function sqlitePath(databaseUrl: string): string {
  return databaseUrl.slice('sqlite:'.length);
}

export const BUSY_TIMEOUT_MS = 5000;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * SQLite does not call the busy handler for the switch to WAL, so another process opening a new
 * database at the same moment would fail its start at once; this waits as any lock does.
 */
function switchToWal(db: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
      Atomics.wait(PAUSE, 0, 0, 10); // at the start, or in the writer thread: never while serving
    }
  }
}

/**
 * Opens a connection with the settings every plantstore connection shares: WAL so readers
 * never wait for the writer; synchronous=FULL, so a commit is on disk before it returns and
 * before any other connection can see it (docs/decisions.md, "Durability"); a busy timeout for
 * other processes' writes; int64 columns as bigint.
 */
export function openConnection(path: string, options: { readonly?: boolean } = {}): Database.Database {
  if (!options.readonly) {
    createPrivateFolder(dirname(path));
    createPrivateFile(path);
  }
  const db = new Database(path, { readonly: options.readonly ?? false });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!options.readonly) switchToWal(db);
  db.pragma('synchronous = FULL');
  db.defaultSafeIntegers(true);
  return db;
}
