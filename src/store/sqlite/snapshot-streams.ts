/**
 * Long lists read from one snapshot: each stream holds a read-only connection in a read
 * transaction, so it may yield chunks across many turns of the event loop (with backpressure)
 * while other requests use the main connection. The connections are pooled: at most
 * `maxConnections` at once, each with a small page cache, and an idle one is closed after a few
 * seconds, so the memory a burst of streams took goes back once they end.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../../errors.js';
import type { StoredPlant } from '../../plants/plant.js';
import type { ListQuery, PlantStream } from '../store.js';
import { openConnection } from './connection.js';
import { plantFilter } from './plant-filter.js';
import { mapSqliteErrors } from './sqlite-errors.js';

/** A plant row as a raw statement returns it. */
type PlantRow = [id: bigint, name: string, tag: string | null];

/** Default cap on snapshot connections, the same as STREAMS_PER_PROCESS's default. */
const DEFAULT_SNAPSHOT_CONNECTIONS = 32;
/** An idle snapshot connection is closed after this; a busy server reuses it before then. */
export const SNAPSHOT_IDLE_CLOSE_MS = 3_000;
/** Page cache per snapshot connection, in KiB: a stream reads each page once, so caching buys little. */
const SNAPSHOT_CACHE_KIB = 64;

/** Plants passed over per statement while finding where a limited stream ends. */
export const EDGE_STEP = 10_000;

/**
 * The id of the `limit`-th plant of the query when another plant follows it, read in the
 * transaction `db` holds. SQLite finds the n-th row by stepping over the ones before it, so a
 * huge `limit` is walked EDGE_STEP plants at a time with a turn of the event loop between steps,
 * rather than holding the loop for the whole count.
 */
async function limitEdge(db: Database.Database, owner: string, query: ListQuery, limit: number): Promise<bigint | undefined> {
  let after = query.after;
  let remaining = limit;
  for (;;) {
    const step = Math.min(remaining, EDGE_STEP);
    const { from, params } = plantFilter(owner, { ...query, after });
    const [stepped, following] = mapSqliteErrors(
      () => db.prepare(`SELECT id FROM ${from} ORDER BY id LIMIT 2 OFFSET ?`).pluck(true).all(...params, step - 1) as bigint[],
    );
    if (stepped === undefined) return undefined; // fewer plants than `limit`
    if (step === remaining) return following === undefined ? undefined : stepped;
    after = stepped;
    remaining -= step;
    await nextTurn();
  }
}

export class SnapshotStreams {
  private readonly idle = new Map<Database.Database, NodeJS.Timeout>();
  private inUse = 0;

  constructor(
    private readonly path: string,
    /** Most snapshot connections open at once. */
    private readonly maxConnections = DEFAULT_SNAPSHOT_CONNECTIONS,
  ) {}

  private take(): Database.Database {
    for (const [db, timer] of this.idle) {
      clearTimeout(timer);
      this.idle.delete(db);
      this.inUse++;
      return db;
    }
    if (this.inUse >= this.maxConnections) {
      throw new StoreUnavailableError(`all ${this.maxConnections} snapshot connections are streaming`);
    }
    const db = mapSqliteErrors(() => openConnection(this.path, { readonly: true }));
    db.pragma(`cache_size = -${SNAPSHOT_CACHE_KIB}`);
    this.inUse++;
    return db;
  }

  private give(db: Database.Database): void {
    this.inUse--;
    try {
      if (db.inTransaction) db.exec('COMMIT');
    } catch {
      db.close();
      return;
    }
    const timer = setTimeout(() => {
      this.idle.delete(db);
      db.close();
    }, SNAPSHOT_IDLE_CLOSE_MS);
    timer.unref();
    this.idle.set(db, timer);
  }

  async open(owner: string, query: ListQuery): Promise<PlantStream> {
    const db = this.take();
    const release = () => this.give(db);
    try {
      mapSqliteErrors(() => db.exec('BEGIN'));
      const nextAfter = query.limit === undefined ? undefined : await limitEdge(db, owner, query, query.limit);
      const { from, params } = plantFilter(owner, query);
      const rows = mapSqliteErrors(
        () =>
          db
            .prepare(`SELECT id, name, tag FROM ${from} ORDER BY id LIMIT ?`)
            .raw(true)
            .iterate(...params, query.limit ?? -1) as IterableIterator<PlantRow>,
      );
      // Read now, so that a database that fails does so before the route has sent its 200.
      let firstRow: IteratorResult<PlantRow> | undefined = mapSqliteErrors(() => rows.next());
      let closed = false;
      return {
        nextAfter,
        next: (max: number) =>
          mapSqliteErrors(() => {
            const chunk: StoredPlant[] = [];
            if (closed) return chunk;
            for (let i = 0; i < max; i++) {
              const step = firstRow ?? rows.next();
              firstRow = undefined;
              if (step.done === true) break;
              const [id, name, tag] = step.value;
              chunk.push({ id, name, tag });
            }
            return chunk;
          }),
        close: () => {
          if (closed) return;
          closed = true;
          rows.return?.();
          release();
        },
      };
    } catch (error) {
      release();
      throw error;
    }
  }

  close(): void {
    for (const [db, timer] of this.idle) {
      clearTimeout(timer);
      db.close();
    }
    this.idle.clear();
  }
}
