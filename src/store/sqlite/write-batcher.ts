/**
 * Group commit: the writes that arrive in one turn of the event loop go into one transaction at
 * the end of the turn, so they share one commit and one fsync; each caller is answered after it.
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
  private readonly requestCommit: () => void;

  /** `onBatch` is told each batch's size and the seconds its commit took, for metrics. */
  constructor(
    private readonly runBatch: (ops: WriteOp[]) => WriteResult[],
    endOfTurn: EndOfTurn,
    private readonly onBatch: (size: number, seconds: number) => void = () => {},
  ) {
    endOfTurn.setCommitWrites(() => this.commit());
    this.requestCommit = endOfTurn.request;
  }

  /** Resolves once the write is committed and on disk. */
  write(op: WriteOp): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      this.requestCommit();
    });
  }

  /** Commits every queued write now; the end of the turn does this, and so does closing. */
  commit(): void {
    while (this.queue.length > 0) this.commitBatch(this.queue.splice(0, MAX_BATCH));
  }

  private commitBatch(batch: Pending[]): void {
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
    this.onBatch(batch.length, (performance.now() - started) / 1000);
    batch.forEach((pending, index) => pending.resolve(results[index] as WriteResult));
  }
}
