/**
 * Makes committed SQLite transactions durable without blocking the event loop.
 *
 * The connection commits with synchronous=NORMAL: the commit's WAL frames are written but not
 * fsynced. Before any caller is answered, this fdatasyncs the WAL file on a thread of its own
 * (and, the first time, the directory that holds its entry); once that returns, the frames are
 * on disk and SQLite's recovery replays them after a crash or power loss, as with
 * synchronous=FULL (SQLite itself syncs the WAL before each checkpoint and the database after
 * it, so a WAL restart never discards unsynced frames). Commits made while a sync runs wait
 * for the next one, which covers them all.
 *
 * After a failed sync the kernel may have dropped the unwritten pages, so a later sync proves
 * nothing: every later durable() fails too, and the store reports itself unavailable until a
 * restart lets SQLite recover from what is really on disk.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreUnavailableError } from '../../errors.js';
import { FsyncThread } from './fsync-thread.js';

/** What a failed WAL sync means to callers: the store is unavailable until a restart. */
export function walSyncFailed(cause: Error): StoreUnavailableError {
  return new StoreUnavailableError(`an fsync of the SQLite WAL failed; restart to recover: ${cause.message}`, { cause });
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The file operations WalSync needs; tests replace them to control when a sync finishes. */
export interface SyncFiles {
  open(path: string): number;
  /** fsyncs a directory, so a newly created file's entry in it is on disk. */
  syncDirectory(path: string): void;
  datasync(fd: number, done: (error: Error | null) => void): void;
  /** Lets a datasync that has finished call its `done` now rather than when the event loop gets to it. */
  poll(): void;
  close(fd: number): void;
}

function nodeFiles(): SyncFiles {
  const thread = new FsyncThread();
  return {
    open: (path) => openSync(path, 'r'),
    syncDirectory: (path) => {
      const fd = openSync(path, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
    datasync: (fd, done) => thread.datasync(fd, done),
    poll: () => thread.poll(),
    close: (fd) => {
      thread.close();
      closeSync(fd);
    },
  };
}

export class WalSync {
  private fd: number | undefined;
  /** Waiters whose commit happened before the running sync started. */
  private running: Waiter[] | undefined;
  /** Waiters whose commit happened after the running sync started: they need the next one. */
  private next: Waiter[] = [];
  private failure: Error | undefined;
  private closed = false;

  constructor(
    private readonly walPath: string,
    private readonly files: SyncFiles = nodeFiles(),
  ) {}

  /** The error of a failed sync, after which nothing more can be promised durable. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Resolves once every commit made before this call is on disk. */
  durable(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error('the WAL sync is closed'));
    return new Promise((resolve, reject) => {
      this.next.push({ resolve, reject });
      if (this.running === undefined) this.start();
    });
  }

  /** Cheap; called on every request, so a finished sync answers its writers without waiting for the event loop. */
  poll(): void {
    if (this.running !== undefined) this.files.poll();
  }

  close(): void {
    this.closed = true;
    if (this.fd !== undefined) this.files.close(this.fd);
    this.fd = undefined;
  }

  private start(): void {
    this.running = this.next;
    this.next = [];
    try {
      // The WAL exists once anything was committed; its inode lives as long as our connection.
      if (this.fd === undefined) {
        this.fd = this.files.open(this.walPath);
        this.files.syncDirectory(dirname(this.walPath));
      }
      this.files.datasync(this.fd, (error) => this.finish(error ?? undefined));
    } catch (error) {
      // Could not even start (no thread, say): nothing more can be promised durable.
      this.finish(error as Error);
    }
  }

  private finish(error: Error | undefined): void {
    const waiters = this.running ?? [];
    this.running = undefined;
    if (error !== undefined) {
      this.failure = error;
      for (const waiter of [...waiters, ...this.next.splice(0)]) waiter.reject(error);
      return;
    }
    for (const waiter of waiters) waiter.resolve();
    if (this.next.length > 0) this.start();
  }
}
