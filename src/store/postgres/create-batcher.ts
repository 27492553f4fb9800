/**
 * Group commit for creates: the creates of one event-loop turn go together, as one statement
 * and one commit (one WAL flush), sent at the end of the turn. Up to MAX_IN_FLIGHT batches are
 * written at once, so a create that arrives while a batch waits for its flush can start its own
 * instead of waiting for it (PostgreSQL flushes concurrent commits together); beyond that,
 * creates queue for the next.
 */
import type { StoredPlant } from '../../plants/plant.js';
import type { CreateResult } from '../store.js';

/** Rows in one INSERT: big enough for a burst, small enough to stay well inside the statement timeout. */
const MAX_BATCH = 500;
/** Batches written at once: a few of the pool's connections, never all of them. */
const MAX_IN_FLIGHT = 3;

export interface PendingCreate {
  owner: string;
  plant: StoredPlant;
  resolve(result: CreateResult): void;
  reject(error: unknown): void;
}

export class CreateBatcher {
  private queue: PendingCreate[] = [];
  private inFlight = 0;

  /**
   * `write` settles every item of the batch itself and never throws; `schedule` asks for `send`
   * at the end of the turn; `onBatch` is told each batch's size and seconds.
   */
  constructor(
    private readonly write: (batch: PendingCreate[]) => Promise<void>,
    private readonly schedule: () => void,
    private readonly onBatch?: (size: number, seconds: number) => void,
  ) {}

  create(owner: string, plant: StoredPlant): Promise<CreateResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ owner, plant, resolve, reject });
      this.schedule();
    });
  }

  /** Writes the queued creates in as many batches as may be in flight; the rest wait for one to finish. */
  send(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      this.inFlight++;
      const batch = this.queue.splice(0, MAX_BATCH);
      const started = performance.now();
      void this.write(batch).finally(() => {
        this.onBatch?.(batch.length, (performance.now() - started) / 1000);
        this.inFlight--;
        if (this.queue.length > 0) this.schedule();
      });
    }
  }
}
