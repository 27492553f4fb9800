/**
 * Long lists read from one snapshot: each stream holds a read-only connection in a read
 * transaction, so it may yield chunks across many turns of the event loop (with backpressure)
 * while other requests use the main connection. Connections are reused, a few at most.
 */
import type Database from 'better-sqlite3';
import type { StoredPlant } from '../../plants/plant.js';
import type { ListQuery, PlantStream } from '../store.js';
import { openConnection } from './connection.js';
import { plantFilter, type PlantRow } from './plant-filter.js';
import { mapSqliteErrors } from './sqlite-errors.js';

const MAX_IDLE_CONNECTIONS = 4;

export class SnapshotStreams {
  private readonly idle: Database.Database[] = [];

  constructor(private readonly path: string) {}

  open(owner: string, query: ListQuery): PlantStream {
    const db = this.idle.pop() ?? mapSqliteErrors(() => openConnection(this.path, { readonly: true }));
    const release = () => {
      if (db.inTransaction) db.exec('COMMIT');
      if (this.idle.length < MAX_IDLE_CONNECTIONS) this.idle.push(db);
      else db.close();
    };
    try {
      return mapSqliteErrors(() => {
        db.exec('BEGIN');
        const { where, params } = plantFilter(owner, query);
        let lastIdBeforeMore: bigint | undefined;
        if (query.limit !== undefined) {
          // The id of the limit-th plant, and whether one follows it, in the same snapshot.
          const edge = db
            .prepare(`SELECT id FROM plants WHERE ${where} ORDER BY id LIMIT 2 OFFSET ?`)
            .all(...params, query.limit - 1) as { id: bigint }[];
          if (edge.length === 2) lastIdBeforeMore = edge[0]?.id;
        }
        const rows = db
          .prepare(`SELECT id, name, tag FROM plants WHERE ${where} ORDER BY id LIMIT ?`)
          .raw(true)
          .iterate(...params, query.limit ?? -1) as IterableIterator<PlantRow>;
        let closed = false;
        return {
          lastIdBeforeMore,
          next: (max: number) =>
            mapSqliteErrors(() => {
              const chunk: StoredPlant[] = [];
              if (closed) return chunk;
              for (let i = 0; i < max; i++) {
                const step = rows.next();
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
      });
    } catch (error) {
      release();
      throw error;
    }
  }

  close(): void {
    for (const db of this.idle.splice(0)) db.close();
  }
}
