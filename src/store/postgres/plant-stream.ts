/**
 * A long read of one owner's plants: one pooled client in a REPEATABLE READ READ ONLY
 * transaction, so the `limit` edge and every keyset chunk come from the same snapshot, and
 * each chunk is fetched only when the previous one has been written out (flat memory).
 */
import type pg from 'pg';
import { ApiError, errors } from '../../errors.js';
import type { ListQuery, PlantStream, TokenCheck } from '../store.js';
import type { StoredPlant } from '../../plants/plant.js';
import { mapPgErrors } from './pg-errors.js';
import { holdClient, type HeldClient } from './pool.js';
import { toStoredPlant, type PlantRow } from './rows.js';
import { sql } from './statements.js';

/** Plants read before the stream is handed over. */
const FIRST_CHUNK = 1000;

/** After a refusal the connection is sound: it goes back to the pool, its transaction rolled back. */
async function rollBackAndRelease(held: HeldClient): Promise<void> {
  try {
    await held.client.query('ROLLBACK');
    held.release();
  } catch (error) {
    held.release(error);
  }
}

export async function openPlantStream(pool: pg.Pool, owner: string, query: ListQuery, token: TokenCheck | undefined): Promise<PlantStream> {
  const held = await mapPgErrors(() => holdClient(pool));
  const { client } = held;
  let nextAfter: bigint | undefined;
  try {
    await mapPgErrors(() => client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'));
    if (token !== undefined) {
      const valid = await mapPgErrors(() => client.query(sql.validToken(token.digest)));
      if (valid.rowCount === 0) throw errors.invalidToken();
    }
    const { limit } = query;
    if (limit !== undefined && limit > 0) {
      // The snapshot starts with this first query: the edge and the chunks agree.
      const edge = await mapPgErrors(() => client.query<{ id: string }>(sql.listEdge(owner, query, limit - 1)));
      const [last, following] = edge.rows;
      if (last !== undefined && following !== undefined) nextAfter = BigInt(last.id);
    }
  } catch (error) {
    if (error instanceof ApiError) await rollBackAndRelease(held);
    else held.release(error);
    throw error;
  }

  let cursor = query.after;
  let remaining = query.limit ?? Number.POSITIVE_INFINITY;
  let done = false;
  let failure: unknown;
  let closing: Promise<void> | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();

  const fetchChunk = async (max: number): Promise<StoredPlant[]> => {
    const take = Math.min(max, remaining);
    if (done || closing !== undefined || take <= 0) return [];
    try {
      const result = await mapPgErrors(() => client.query<PlantRow>(sql.listPlants(owner, { after: cursor, tag: query.tag }, take)));
      const chunk = result.rows.map(toStoredPlant);
      remaining -= chunk.length;
      if (chunk.length < take) done = true;
      cursor = chunk.at(-1)?.id ?? cursor;
      return chunk;
    } catch (error) {
      failure = error;
      done = true;
      throw error;
    }
  };

  // The first chunk is read before the caller sends a status line: if the database fails
  // now, the client still gets a clean 503 instead of a cut-off 200.
  let buffered: StoredPlant[];
  try {
    buffered = await fetchChunk(FIRST_CHUNK);
  } catch (error) {
    held.release(error);
    throw error;
  }

  return {
    nextAfter,
    next(max: number) {
      if (buffered.length > 0) {
        const chunk = buffered.slice(0, max);
        buffered = buffered.slice(max);
        return Promise.resolve(chunk);
      }
      const chunk = fetchChunk(max);
      inFlight = chunk.catch(() => undefined);
      return chunk;
    },
    close() {
      closing ??= (async () => {
        await inFlight;
        if (failure === undefined) {
          try {
            await client.query('COMMIT');
          } catch (error) {
            failure = error;
          }
        }
        // A failed connection is closed rather than reused; closing it also ends the transaction.
        held.release(failure);
      })();
      return closing;
    },
  };
}
