/**
 * Group commit for creates: while one batch of creates is being written, the creates that
 * arrive wait and then go together, as one statement and one commit (one WAL flush), so a
 * burst of creates does not queue for the pool one fsync at a time. A lone create goes at once.
 */
import type { StoredPlant } from '../../plants/plant.js';
import type { CreateResult, TokenCheck } from '../store.js';

/** Rows in one INSERT: big enough for a burst, small enough to stay well inside the statement timeout. */
const MAX_BATCH = 500;

export interface PendingCreate {
  owner: string;
  plant: StoredPlant;
  /** Checked with the insert: a revoked token creates nothing and gets the 401. */
  token: TokenCheck | undefined;
  resolve(result: CreateResult): void;
  reject(error: unknown): void;
}

export class CreateBatcher {
  private queue: PendingCreate[] = [];
  private writing = false;

  /** `write` settles every item of the batch itself and never throws. */
  constructor(private readonly write: (batch: PendingCreate[]) => Promise<void>) {}

  create(owner: string, plant: StoredPlant, token: TokenCheck | undefined): Promise<CreateResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ owner, plant, token, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) await this.write(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.writing = false;
    }
  }
}
