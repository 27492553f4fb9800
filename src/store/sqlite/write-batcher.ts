/**
 * Group commit: the writes that arrive in one turn of the event loop go into one transaction,
 * and the commits made while an fsync runs share the next one (wal-sync.ts); each caller is
 * answered only after the fsync that covers its commit. The transactions themselves hold no
 * fsync, so the event loop waits for the disk only when SQLite checkpoints the WAL.
 */
import { StoreUnavailableError } from '../../errors.js';
import { walSyncFailed, type WalSync } from './wal-sync.js';
import type { WriteOp, WriteResult } from './write-ops.js';

const MAX_BATCH = 1024;

interface Pending {
  op: WriteOp;
  resolve: (result: WriteResult) => void;
  reject: (error: Error) => void;
}

export class WriteBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private inFlight = 0;
  private drained: (() => void)[] = [];
  /** `onBatch` is told each batch's size and the seconds until it was durable, for metrics. */
  constructor(
    private readonly runBatch: (ops: WriteOp[]) => WriteResult[],
    private readonly wal: WalSync,
    private readonly onBatch: (size: number, seconds: number) => void = () => {},
  ) {}

  write(op: WriteOp): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Resolves when every accepted write is committed and durable. */
  drain(): Promise<void> {
    if (!this.scheduled && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private notifyIfIdle(): void {
    if (this.inFlight === 0 && !this.scheduled) for (const resolve of this.drained.splice(0)) resolve();
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.commit(batch);
    }
    this.notifyIfIdle();
  }

  private commit(batch: Pending[]): void {
    const lost = this.wal.failed;
    if (lost !== undefined) {
      // Nothing committed now could be made durable: refuse it without touching the database.
      const failure = walSyncFailed(lost);
      for (const pending of batch) pending.reject(failure);
      return;
    }
    const started = performance.now();
    let results: WriteResult[];
    try {
      results = this.runBatch(batch.map((pending) => pending.op));
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      const failure = new StoreUnavailableError(`SQLite write failed (${code ?? 'unknown'}): ${message}`, { cause: error });
      for (const pending of batch) pending.reject(failure);
      return;
    }
    this.inFlight++;
    this.wal.durable().then(
      () => {
        this.inFlight--;
        this.onBatch(batch.length, (performance.now() - started) / 1000);
        batch.forEach((pending, index) => pending.resolve(results[index] as WriteResult));
        this.notifyIfIdle();
      },
      (error: unknown) => {
        this.inFlight--;
        const failure = walSyncFailed(error as Error);
        for (const pending of batch) pending.reject(failure);
        this.notifyIfIdle();
      },
    );
  }
}
