/**
 * Group commit: the writes that arrive in one turn of the event loop go to the writer thread
 * together at the end of the turn. Two batches may be out at once, one committing and one
 * waiting behind it, so a turn's writes need not wait for the answer to the previous turn's
 * (docs/performance.md, "Where the p99 of many comes from"); writes that arrive while two are out
 * go together as the next. Each caller is answered once the commit that holds its write is synced.
 */
import { StoreUnavailableError } from '../../errors.js';
import type { EndOfTurn } from '../../util/end-of-turn.js';
import type { WriteOp, WriteResult } from './write-ops.js';

const MAX_BATCH = 1024;
/** Batches handed to the writer thread and not yet answered, at most. */
const MAX_IN_FLIGHT = 2;

interface Pending {
  op: WriteOp;
  resolve: (result: WriteResult) => void;
  reject: (error: Error) => void;
}

export class WriteBatcher {
  private queue: Pending[] = [];
  private committing = 0;
  private idle: (() => void)[] = [];
  private readonly scheduleSend: () => void;

  /** `onBatch` is told each batch's size and the seconds until it was synced, for metrics. */
  constructor(
    private readonly runBatch: (ops: WriteOp[]) => Promise<WriteResult[]>,
    endOfTurn: EndOfTurn,
    private readonly onBatch: (size: number, seconds: number) => void = () => {},
  ) {
    endOfTurn.set('sendWrites', () => this.sendQueued());
    this.scheduleSend = endOfTurn.schedule;
  }

  /** Resolves once the write is committed and synced. */
  write(op: WriteOp): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      this.scheduleSend();
    });
  }

  /** Resolves once every write accepted so far is committed (closing waits for this). */
  drain(): Promise<void> {
    if (this.committing === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Hands the queued writes to the writer thread while fewer than MAX_IN_FLIGHT batches are out: the end of one sends the next. */
  private sendQueued(): void {
    while (this.committing < MAX_IN_FLIGHT && this.queue.length > 0) this.send(this.queue.splice(0, MAX_BATCH));
    if (this.committing === 0 && this.queue.length === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  private send(batch: Pending[]): void {
    this.committing++;
    const started = performance.now();
    this.runBatch(batch.map((pending) => pending.op)).then(
      (results) => {
        batch.forEach((pending, index) => pending.resolve(results[index] as WriteResult));
        this.onBatch(batch.length, (performance.now() - started) / 1000);
      },
      (error: unknown) => {
        const failure = error instanceof StoreUnavailableError ? error : new StoreUnavailableError(`SQLite write failed: ${String(error)}`, { cause: error });
        for (const pending of batch) pending.reject(failure);
      },
    ).finally(() => {
      this.committing--;
      this.sendQueued();
    });
  }
}
