/**
 * The share of the connection pool that streamed lists may hold. A stream keeps its connection
 * for as long as its client reads; without a cap, a few unread streams would take the whole
 * pool, and every token check and short request behind them would wait and fail. A quarter of
 * the pool (at least one connection) is kept for everything else, which is why a pool has at
 * least two.
 */
import { errors } from '../../errors.js';
import type { PlantStream } from '../store.js';
import { POOL_WAIT_MS } from './pool.js';

/** Connections streams may hold at once out of a pool of `poolSize` (2 or more). */
export function maxStreamConnections(poolSize: number): number {
  return poolSize - Math.max(1, Math.ceil(poolSize / 4));
}

export class StreamShare {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly max: number,
    private readonly waitMs: number = POOL_WAIT_MS,
  ) {}

  /**
   * Opens a stream once a share slot is free; after waiting `waitMs` the request is refused with
   * the 503 for a server at its stream limit. Closing the stream frees the slot.
   */
  async open(openStream: () => Promise<PlantStream>): Promise<PlantStream> {
    await this.take();
    let stream: PlantStream;
    try {
      stream = await openStream();
    } catch (error) {
      this.give();
      throw error;
    }
    let closed = false;
    return {
      nextAfter: stream.nextAfter,
      next: (max) => stream.next(max),
      close: async () => {
        if (closed) return;
        closed = true;
        try {
          await stream.close();
        } finally {
          this.give();
        }
      },
    };
  }

  private take(): Promise<void> {
    if (this.held < this.max) {
      this.held++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(); // the slot passes straight from give() to this waiter
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        reject(errors.streamsBusy(Math.ceil(this.waitMs / 1000)));
      }, this.waitMs);
      this.waiting.push(grant);
    });
  }

  private give(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.held--;
  }
}
