/**
 * createPlant on PostgreSQL: insert, or on an (owner, id) conflict compare with the stored
 * plant. A batch (a lone create too) goes as one INSERT … ON CONFLICT; a create the batch could
 * not settle goes alone.
 */
import type pg from 'pg';
import { StoreUnavailableError, errors } from '../../errors.js';
import { repeatOrConflict, type StoredPlant } from '../../plants/plant.js';
import type { CreateResult } from '../store.js';
import type { PendingCreate } from './create-batcher.js';
import { mapPgErrors, isDatabaseError, toStoreError } from './pg-errors.js';
import { sql } from './statements.js';

/** A create finds its holder deleted before it could read it at most this often in a row. */
const CREATE_ATTEMPTS = 5;

async function createOne(pool: pg.Pool, owner: string, plant: StoredPlant): Promise<CreateResult> {
  for (let attempt = 1; attempt <= CREATE_ATTEMPTS; attempt++) {
    // ON CONFLICT waits for a concurrent insert of the same key to commit or roll back, and
    // under READ COMMITTED the SELECT that follows is a new statement that sees the winner.
    const inserted = await mapPgErrors(() => pool.query(sql.insertPlant(owner, plant.id, plant.name, plant.tag)));
    if (inserted.rowCount === 1) return { outcome: 'created', stored: { ...plant } };
    const found = await mapPgErrors(() => pool.query<{ name: string; tag: string | null }>(sql.selectPlant(owner, plant.id)));
    const row = found.rows[0];
    if (row !== undefined) {
      return { outcome: repeatOrConflict(plant, row), stored: { id: plant.id, name: row.name, tag: row.tag } };
    }
    // The holder was deleted between the two statements: the id is free again, try once more.
  }
  // An ApiError, not a StoreUnavailableError: the database answers, so the batch's other creates go on.
  throw errors.unavailable('A plant with this id kept being created and deleted by other requests; try again.');
}

/**
 * Creates a batch with one statement, two on conflicts, filling `results` as each answers: the
 * first commits, so what it settled stands even when the second fails. A create left undefined
 * must be retried alone.
 */
async function createMany(pool: pg.Pool, batch: PendingCreate[], results: (CreateResult | undefined)[]): Promise<void> {
  const column = <T>(pick: (item: PendingCreate) => T) => batch.map(pick);
  const inserted = await pool.query<{ n: string; winner: string }>(
    sql.insertPlants(
      column((item) => item.owner),
      column((item) => item.plant.id.toString()),
      column((item) => item.plant.name),
      column((item) => item.plant.tag),
    ),
  );
  for (const row of inserted.rows) {
    const item = batch[Number(row.n) - 1];
    const winner = batch[Number(row.winner) - 1];
    if (item === undefined || winner === undefined) continue;
    const stored = { ...winner.plant };
    results[Number(row.n) - 1] = item === winner ? { outcome: 'created', stored } : { outcome: repeatOrConflict(item.plant, stored), stored };
  }
  // The rest met a row that was there before: read it in a new statement, which sees every row
  // committed by now (READ COMMITTED), as the lone create does.
  const rest = batch.flatMap((item, index) => (results[index] === undefined ? [{ item, position: index + 1 }] : []));
  if (rest.length === 0) return;
  const found = await pool.query<{ n: number; name: string; tag: string | null }>(
    sql.selectPlants(rest.map(({ item }) => item.owner), rest.map(({ item }) => item.plant.id.toString()), rest.map(({ position }) => position)),
  );
  for (const row of found.rows) {
    const item = batch[row.n - 1];
    if (item === undefined) continue;
    const stored = { id: item.plant.id, name: row.name, tag: row.tag };
    results[row.n - 1] = { outcome: repeatOrConflict(item.plant, stored), stored };
  }
}

/**
 * The batch writer for CreateBatcher: settles every create of the batch and never throws. The
 * creates the batch left unsettled go alone, one at a time (a failed batch must not become
 * hundreds of statements at once on a struggling database), until one finds it unavailable.
 */
export function writeCreates(pool: pg.Pool): (batch: PendingCreate[]) => Promise<void> {
  return async (batch) => {
    const results: (CreateResult | undefined)[] = batch.map(() => undefined);
    /** Why the creates not settled yet fail: the connection did, or the database cannot serve. */
    let unavailable: unknown;
    try {
      await createMany(pool, batch, results);
    } catch (error) {
      // One value PostgreSQL refuses (or a timeout) fails the whole statement: alone, each
      // create not settled yet gets its own answer.
      if (!isDatabaseError(error)) unavailable = toStoreError(error);
    }
    const alone: PendingCreate[] = [];
    batch.forEach((item, index) => {
      const result = results[index];
      if (result === undefined) alone.push(item);
      else item.resolve(result);
    });
    for (const item of alone) {
      if (unavailable !== undefined) {
        item.reject(unavailable);
        continue;
      }
      try {
        item.resolve(await createOne(pool, item.owner, item.plant));
      } catch (error) {
        if (error instanceof StoreUnavailableError) unavailable = error;
        item.reject(error);
      }
    }
  };
}
