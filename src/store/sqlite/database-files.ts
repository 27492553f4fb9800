/**
 * The database file and its WAL, and whether they are still on disk where they were opened.
 * Removed or replaced while plantstore runs (an `rm`, a cleaner of old files), SQLite goes on
 * writing to files that no path names: every write acknowledged since the last checkpoint would
 * be lost at the next crash. So the store refuses writes and readiness until it is stopped;
 * closing moves what a removed WAL holds into the database, for the last connection checkpoints
 * through it.
 */
import { statSync } from 'node:fs';

/** The file's device and inode; undefined when nothing is at `path`. */
function identity(path: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats === undefined ? undefined : `${stats.dev}:${stats.ino}`;
}

class FilesRemovedError extends Error {
  readonly code = 'FILES_REMOVED';
}

export class DatabaseFiles {
  private readonly database: string | undefined;
  /** Recorded when first seen: SQLite makes the WAL at the first transaction, not at open. */
  private wal: string | undefined;

  constructor(private readonly path: string) {
    this.database = identity(path);
    this.wal = identity(`${path}-wal`);
  }

  /** Throws FilesRemovedError when the database or its WAL is gone from its path or replaced. */
  checkInPlace(): void {
    if (identity(this.path) !== this.database) {
      throw this.removed(this.path, 'stop plantstore and restore the database from a backup');
    }
    const wal = identity(`${this.path}-wal`);
    if (this.wal === undefined) this.wal = wal;
    else if (wal !== this.wal) {
      throw this.removed(`${this.path}-wal`, 'stop plantstore with SIGTERM, which moves what the WAL holds into the database as it closes, and start it again');
    }
  }

  private removed(file: string, remedy: string): FilesRemovedError {
    return new FilesRemovedError(`${file} was removed or replaced while plantstore had it open, and each write would be lost at the next crash: ${remedy}`);
  }
}
