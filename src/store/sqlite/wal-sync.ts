/**
 * Makes committed SQLite transactions durable without blocking the event loop.
 *
 * The connection commits with synchronous=NORMAL: the commit's WAL frames are written but not
 * fsynced. Before any caller is answered, this fdatasyncs the WAL file in libuv's thread pool;
 * once that returns, the frames are on disk and SQLite's recovery replays them after a crash
 * or power loss, exactly as with synchronous=FULL (SQLite itself syncs the WAL before each
 * checkpoint and the database after it, so a WAL restart never discards unsynced frames).
 * Commits that arrive while a sync runs share the next one.
 */
import { closeSync, fdatasync, openSync } from 'node:fs';

export class WalSync {
  private fd: number | undefined;
  /** Waiters whose commit happened before the running sync started. */
  private running: (() => void)[] | undefined;
  private runningFailures: ((error: Error) => void)[] = [];
  /** Waiters whose commit happened after the running sync started: they need the next one. */
  private next: { resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(private readonly walPath: string) {}

  /** Resolves once every commit made before this call is on disk. */
  durable(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.next.push({ resolve, reject });
      if (this.running === undefined) this.start();
    });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private start(): void {
    const waiters = this.next;
    this.next = [];
    this.running = waiters.map((waiter) => waiter.resolve);
    this.runningFailures = waiters.map((waiter) => waiter.reject);
    let fd: number;
    try {
      // The WAL exists once anything was committed; its inode lives as long as our connection.
      fd = this.fd ??= openSync(this.walPath, 'r');
    } catch (error) {
      this.finish(error as Error);
      return;
    }
    fdatasync(fd, (error) => this.finish(error ?? undefined));
  }

  private finish(error: Error | undefined): void {
    const resolves = this.running ?? [];
    const rejects = this.runningFailures;
    this.running = undefined;
    this.runningFailures = [];
    if (error === undefined) for (const resolve of resolves) resolve();
    else for (const reject of rejects) reject(error);
    if (this.next.length > 0) this.start();
  }
}
