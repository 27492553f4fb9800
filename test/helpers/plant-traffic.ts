/**
 * Concurrent creates, deletes and full lists against a running plantstore, with a ledger of
 * what the server acknowledged and what its reads showed, for the power-loss test to check
 * after the cut.
 */
import { performance } from 'node:perf_hooks';
import { authorizedFetch } from './server.js';

/** A plant's name carries its id, since the API's Plant has none. */
export function plantName(id: number): string {
  return `plant-${id}`;
}

export function plantIds(plants: { name: string }[]): Set<number> {
  return new Set(plants.map((plant) => Number(plant.name.slice('plant-'.length))));
}

export interface Ledger {
  createsTried: Set<number>;
  /** Answered 200. */
  created: Set<number>;
  deletesTried: Set<number>;
  /** Answered 204. */
  deleted: Set<number>;
  /** Listed by a GET. */
  shown: Set<number>;
  /** Missing from a GET that began after the plant was known to exist: its delete was shown. */
  shownDeleted: Set<number>;
  gets: number;
}

export class PlantTraffic {
  readonly ledger: Ledger = {
    createsTried: new Set(),
    created: new Set(),
    deletesTried: new Set(),
    deleted: new Set(),
    shown: new Set(),
    shownDeleted: new Set(),
    gets: 0,
  };
  /** Plants known to exist, and since when (performance.now()); deletes pick from these. */
  private readonly existing = new Map<number, number>();
  private nextId: number;
  private stopped = false;
  private loops: Promise<void>[] = [];
  private unansweredWaiters: (() => void)[] = [];

  /**
   * `existing`: the plants stored when the traffic starts; new ones get ids from `firstId` on.
   * A GET counts a known plant it does not list as shown deleted only when it began
   * `settleMs` after the plant was known: another worker's cache may lag a commit briefly.
   */
  constructor(
    private readonly url: string,
    private readonly token: string,
    existing: Iterable<number>,
    firstId: number,
    private readonly settleMs = 50,
  ) {
    const now = performance.now();
    for (const id of existing) this.existing.set(id, now);
    this.nextId = firstId;
  }

  start(writers: number, readers: number): void {
    for (let i = 0; i < writers; i++) this.loops.push(this.loop(() => this.write()));
    for (let i = 0; i < readers; i++) this.loops.push(this.loop(() => this.read()));
  }

  /**
   * Resolves when a GET shows a write whose answer has not arrived yet: it lists a plant whose
   * create is unanswered, or misses one whose delete is. A correct server has synced such a
   * write already; one that shows writes before syncing them is caught by a cut at this moment.
   */
  unansweredWriteShown(): Promise<void> {
    return new Promise((resolve) => this.unansweredWaiters.push(resolve));
  }

  /** From now on nothing more is asked and no read counts (nothing reads after a power cut). */
  halt(): void {
    this.stopped = true;
  }

  /** Resolves when every request in flight has ended (the server is gone, so they fail fast). */
  async finished(): Promise<void> {
    this.halt();
    await Promise.all(this.loops);
  }

  private async loop(step: () => Promise<void>): Promise<void> {
    while (!this.stopped) {
      // A request cut off by the kill is neither acknowledged nor shown: nothing to record.
      await step().catch(() => undefined);
    }
  }

  private request(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    return authorizedFetch(this.url + path, this.token, { ...init, signal: AbortSignal.timeout(10_000) });
  }

  private async write(): Promise<void> {
    const candidates = [...this.existing.keys()].filter((id) => !this.ledger.deletesTried.has(id));
    if (candidates.length > 0 && Math.random() < 0.3) {
      const id = candidates[Math.floor(Math.random() * candidates.length)] as number;
      this.ledger.deletesTried.add(id);
      const response = await this.request(`/plants/${id}`, { method: 'DELETE' });
      await response.arrayBuffer();
      if (response.status === 204) this.ledger.deleted.add(id);
      return;
    }
    const id = this.nextId++;
    this.ledger.createsTried.add(id);
    const response = await this.request('/plants', { method: 'POST', json: { id, name: plantName(id) } });
    await response.arrayBuffer();
    if (response.status === 200) {
      this.ledger.created.add(id);
      this.existing.set(id, performance.now());
    }
  }

  private async read(): Promise<void> {
    const startedAt = performance.now();
    const response = await this.request('/plants');
    if (response.status !== 200) {
      await response.arrayBuffer();
      return;
    }
    const listed = plantIds((await response.json()) as { name: string }[]);
    if (this.stopped) return;
    this.ledger.gets++;
    const { ledger } = this;
    let unanswered = false;
    for (const id of listed) {
      ledger.shown.add(id);
      if (!ledger.created.has(id) && ledger.createsTried.has(id)) unanswered = true;
    }
    for (const [id, since] of this.existing) {
      if (since + this.settleMs >= startedAt || listed.has(id)) continue;
      ledger.shownDeleted.add(id);
      if (!ledger.deleted.has(id)) unanswered = true;
    }
    if (unanswered) for (const resolve of this.unansweredWaiters.splice(0)) resolve();
  }
}
