/**
 * Backup and restore of the embedded database with SQLite's online backup API (better-sqlite3's
 * db.backup()). The copy is taken in one step, inside one read transaction, so it is the
 * database as of one commit even while a server goes on writing (WAL lets the writer go on).
 */
import { closeSync, existsSync, fsyncSync, lstatSync, openSync, readlinkSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { BUSY_TIMEOUT_MS, createPrivateFolder } from './connection.js';

/** A backup or restore that cannot be done; the message is one line for the operator. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

export interface BackupSummary {
  plants: number;
  tokens: number;
}

/** Asking for every page in one step keeps the copy inside one read transaction. */
const ALL_PAGES = 0x7fffffff;

function sqliteCode(error: unknown): string | undefined {
  return error instanceof Database.SqliteError ? error.code : undefined;
}

/**
 * Checks that `file` is an intact plantstore database and counts what it holds; messages name
 * `shownAs`, the file the operator knows (a backup's source rather than its copy).
 */
function inspect(file: string, shownAs = file): BackupSummary {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`cannot open ${shownAs} (${sqliteCode(error) ?? (error as Error).message})`);
  }
  try {
    const check = db.pragma('quick_check', { simple: true });
    // SQLite's report has a line per problem: the message stays one line.
    if (check !== 'ok') throw new BackupError(`${shownAs} is damaged: ${String(check).replace(/\s*\n\s*/g, '; ')}`);
    const tables = new Set(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[]);
    if (!tables.has('plants') || !tables.has('api_tokens')) throw new BackupError(`${shownAs} is not a plantstore database`);
    const count = (table: string) => Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
    return { plants: count('plants'), tokens: count('api_tokens') };
  } catch (error) {
    if (error instanceof BackupError) throw error;
    // A backup made in WAL mode (as plantstore's were before they were made in rollback mode)
    // needs its -shm beside it, even to be read.
    if (sqliteCode(error) === 'SQLITE_READONLY_DIRECTORY') throw new BackupError(`${shownAs} can be read only from a folder this user can write; copy it into one`);
    throw new BackupError(`${shownAs} is not a readable SQLite database (${sqliteCode(error) ?? (error as Error).message})`);
  } finally {
    db.close();
  }
}

/** Whether `a` and `b` name one file (through links, hard ones too). */
function sameFile(a: string, b: string): boolean {
  try {
    const [first, second] = [statSync(a), statSync(b)];
    return first.dev === second.dev && first.ino === second.ino;
  } catch {
    return false; // one of them is not there
  }
}

/** Renames `from` to `to` and syncs their folder, so the new name outlasts a power cut. */
function renameDurably(from: string, to: string): void {
  renameSync(from, to);
  const folder = openSync(dirname(to), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}

/**
 * Copies the database at `source` into `destination`, a new file readable by its owner only
 * (as connection.ts makes a database). Whatever was there is removed first, a planted link
 * included; `wx` refuses one planted in between. The copy is left in rollback-journal mode: a
 * WAL database cannot be read, not even to restore it, from a folder its reader cannot write.
 */
async function copy(source: string, destination: string): Promise<void> {
  rmSync(destination, { force: true });
  closeSync(openSync(destination, 'wx', 0o600));
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    await db.backup(destination, { progress: () => ALL_PAGES });
    const copied = new Database(destination, { fileMustExist: true });
    try {
      copied.pragma('journal_mode = DELETE');
    } finally {
      copied.close();
    }
  } catch (error) {
    const code = sqliteCode(error);
    if (code === 'SQLITE_FULL') throw new BackupError(`the disk that holds ${destination} is full`);
    if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') throw new BackupError(`${source} is damaged (${code}): SQLite cannot read it to copy it`);
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Writes a consistent copy of the live database at `source` to `destination`, which must not
 * exist yet (a backup never replaces another). Safe while a server serves writes.
 */
export async function backupDatabase(source: string, destination: string): Promise<BackupSummary> {
  if (!existsSync(source)) throw new BackupError(`there is no database at ${source}; check DATABASE_URL`);
  if (existsSync(destination)) throw new BackupError(`${destination} exists already; give the backup a new file name`);
  if (!existsSync(dirname(destination))) throw new BackupError(`the folder ${dirname(destination)} does not exist`);
  const partial = `${destination}.partial`;
  // copy() removes whatever is at `partial` first.
  if (sameFile(source, partial)) throw new BackupError(`the database ${source} is the file this backup would write its copy to; give the backup another name`);
  try {
    await copy(source, partial);
    const summary = inspect(partial, source);
    renameDurably(partial, destination);
    return summary;
  } finally {
    rmSync(partial, { force: true });
  }
}

/**
 * Opens `target` so that no one else can: fails if any connection (a running server, a
 * `plantstore` command) has it open. Leaving WAL mode needs the database to itself, and
 * afterwards no -wal or -shm file is left beside it.
 */
function takeOver(target: string): Database.Database {
  const db = new Database(target, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
    db.pragma('journal_mode = DELETE');
    return db;
  } catch (error) {
    db.close();
    const code = sqliteCode(error);
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new BackupError(`${target} is in use (a plantstore server or command has it open); stop it, then restore`);
    }
    // Whether something still has it open cannot be told: the operator moves it, keeping what it holds.
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new BackupError(`${target} is damaged (${code}); move it aside with its -wal and -shm files, then restore`);
    throw error;
  }
}

/**
 * The file `path` names, through any link: a database on a mounted volume may be reached by a
 * link, and a rename onto the link would replace the link, not the database on the volume.
 */
function linkedFile(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  try {
    if (lstatSync(path).isSymbolicLink()) return resolve(dirname(path), readlinkSync(path));
  } catch {
    // nothing there, or a folder in the way: the steps that follow say which
  }
  return path;
}

/**
 * Replaces the database at `path` (the file it links to, where it is a link) with the backup in
 * `backupFile`. Refuses while anything has the database open; the old database stays untouched
 * until the new one is complete.
 */
export async function restoreDatabase(backupFile: string, path: string): Promise<BackupSummary> {
  if (!existsSync(backupFile)) throw new BackupError(`there is no backup at ${backupFile}`);
  const summary = inspect(backupFile);
  const target = linkedFile(path);
  createPrivateFolder(dirname(target));
  const incoming = `${target}.restoring`;
  // copy() removes whatever is at `incoming` first: a backup left there by a restore cut short.
  if (sameFile(backupFile, incoming)) throw new BackupError(`${backupFile} is the file restore copies the backup to; rename it, then restore from the new name`);
  // With no database there, a -wal left beside it holds changes of one that was moved away.
  if (!existsSync(target) && existsSync(`${target}-wal`) && statSync(`${target}-wal`).size > 0) {
    throw new BackupError(`${target}-wal holds changes of a database no longer at ${target}; move it and ${target}-shm beside that database (or delete them), then restore`);
  }
  try {
    await copy(backupFile, incoming);
    const held = existsSync(target) ? takeOver(target) : undefined;
    // With no database there, an empty -wal or a -shm left beside it would be applied to the new file.
    if (held === undefined) for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
    try {
      renameDurably(incoming, target);
    } finally {
      held?.close();
    }
    return summary;
  } finally {
    rmSync(incoming, { force: true });
  }
}
