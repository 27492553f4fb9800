/**
 * Group commit: the writes that arrive in one turn of the event loop go to the writer thread
 * together at the end of the turn; writes that arrive while it commits go together as the next
 * batch. Each caller is answered once the commit that holds its write is synced.
 */
import { StoreUnavailableError } from '../../errors.js';
import type { EndOfTurn } from '../../util/end-of-turn.js';
import type { WriteOp, WriteResult } from './write-ops.js';

const MAX_BATCH = 1024;

interface Pending {
  op: WriteOp;
  resolve: (result: WriteResult) => void;
  reject: (error: Error) => void;
}

export class WriteBatcher {
  private queue: Pending[] = [];
  private committing = false;
  private idle: (() => void)[] = [];
  private readonly scheduleCommit: () => void;

  /** `onBatch` is told each batch's size and the seconds until it was synced, for metrics. */
  constructor(
    private readonly runBatch: (ops: WriteOp[]) => Promise<WriteResult[]>,
    endOfTurn: EndOfTurn,
    private readonly onBatch: (size: number, seconds: number) => void = () => {},
  ) {
    endOfTurn.setCommitWrites(() => this.commit());
    this.scheduleCommit = endOfTurn.schedule;
  }

  /** Resolves once the write is committed and synced. */
  write(op: WriteOp): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      this.scheduleCommit();
    });
  }

  /** Resolves once every write accepted so far is committed (closing waits for this). */
  drain(): Promise<void> {
    if (!this.committing && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Starts committing the queued writes, unless a commit is under way: its end starts the next. */
  private commit(): void {
    if (this.committing) return;
    if (this.queue.length === 0) {
      for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    const batch = this.queue.splice(0, MAX_BATCH);
    this.committing = true;
    const started = performance.now();
    this.runBatch(batch.map((pending) => pending.op)).then(
      (results) => {
        this.onBatch(batch.length, (performance.now() - started) / 1000);
        batch.forEach((pending, index) => pending.resolve(results[index] as WriteResult));
      },
      (error: unknown) => {
        const failure = error instanceof StoreUnavailableError ? error : new StoreUnavailableError(`SQLite write failed: ${String(error)}`, { cause: error });
        for (const pending of batch) pending.reject(failure);
      },
    ).finally(() => {
      this.committing = false;
      this.commit();
    });
  }
}
