/**
 * Long lists read from one snapshot: each stream holds a read-only connection in a read
 * transaction, so it may yield chunks across many turns of the event loop (with backpressure)
 * while other requests use the main connection. Connections are reused, a few at most.
 */
import type Database from 'better-sqlite3';
import type { StoredPlant } from '../../plants/plant.js';
import type { ListQuery, PlantStream } from '../store.js';
import { openConnection } from './connection.js';
import { guard } from './guard.js';

const MAX_IDLE_CONNECTIONS = 4;

export class SnapshotStreams {
  private readonly idle: Database.Database[] = [];

  constructor(private readonly path: string) {}

  open(owner: string, query: ListQuery): PlantStream {
    const db = this.idle.pop() ?? guard(() => openConnection(this.path, { readonly: true }));
    const release = () => {
      if (db.inTransaction) db.exec('COMMIT');
      if (this.idle.length < MAX_IDLE_CONNECTIONS) this.idle.push(db);
      else db.close();
    };
    try {
      return guard(() => {
        db.exec('BEGIN');
        const where = query.after === undefined ? 'owner = ?' : 'owner = ? AND id > ?';
        const params: unknown[] = query.after === undefined ? [owner] : [owner, query.after];
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
          .iterate(...params, query.limit ?? -1) as IterableIterator<StoredPlant>;
        let closed = false;
        return {
          lastIdBeforeMore,
          next: async (max: number) =>
            guard(() => {
              const chunk: StoredPlant[] = [];
              if (closed) return chunk;
              for (let i = 0; i < max; i++) {
                const step = rows.next();
                if (step.done === true) break;
                chunk.push(step.value);
              }
              return chunk;
            }),
          close: async () => {
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
