/**
 * The PostgreSQL store: a connection pool shared by any number of plantstore instances on one
 * database. Each write is one autocommitted statement (or one short transaction), so a 200 or
 * 204 is sent only after COMMIT, with synchronous_commit on.
 */
import type pg from 'pg';
import { StoreUnavailableError } from '../../errors.js';
import { samePlant, type StoredPlant } from '../../plants/plant.js';
import type { CreateResult, ListQuery, NewTokenRecord, PlantPage, PlantStream, Store, TokenRecord } from '../store.js';
import { migrate } from './migrations.js';
import { CreateBatcher, type PendingCreate } from './create-batcher.js';
import { guard, isDatabaseError, toStoreError } from './pg-errors.js';
import { openPlantStream } from './plant-stream.js';
import { createPool, inTransaction, type PoolOptions } from './pool.js';
import type { PoolStats } from './pool-metrics.js';
import { toStoredPlant, toTokenRecord, type PlantRow, type TokenRow } from './rows.js';
import { sql } from './statements.js';

/** pg_advisory_xact_lock key that serialises first-token creation: the ASCII of "plnttokn". */
const FIRST_TOKEN_LOCK = '8100971276181400430';
/** A create finds its holder deleted before it could read it at most this often in a row. */
const CREATE_ATTEMPTS = 5;

export class PostgresStore implements Store {
  readonly kind = 'postgres';
  private readonly pool: pg.Pool;
  private readonly maxConnections: number;
  private readonly creates = new CreateBatcher((batch) => this.writeCreates(batch));

  constructor(options: PoolOptions) {
    this.pool = createPool(options);
    this.maxConnections = options.size;
  }

  get poolStats(): PoolStats {
    const pool = this.pool;
    return { max: this.maxConnections, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }

  private query<Row extends pg.QueryResultRow>(statement: pg.QueryConfig<unknown[]>): Promise<pg.QueryResult<Row>> {
    return guard(() => this.pool.query<Row>(statement));
  }

  async migrate(): Promise<number> {
    return guard(() => migrate(this.pool));
  }

  createPlant(owner: string, plant: StoredPlant): Promise<CreateResult> {
    return this.creates.create(owner, plant);
  }

  /** Writes one batch of creates; settles every item and never throws. */
  private async writeCreates(batch: PendingCreate[]): Promise<void> {
    let results: (CreateResult | undefined)[] = [];
    if (batch.length > 1) {
      try {
        results = await this.createMany(batch);
      } catch (error) {
        if (!isDatabaseError(error)) {
          const mapped = toStoreError(error);
          for (const item of batch) item.reject(mapped);
          return;
        }
        // One value PostgreSQL refuses (or a lock timeout) fails the whole statement: alone,
        // each create gets its own answer.
      }
    }
    await Promise.all(
      batch.map(async (item, index) => {
        const result = results[index];
        if (result !== undefined) return item.resolve(result);
        try {
          item.resolve(await this.createOne(item.owner, item.plant));
        } catch (error) {
          item.reject(error);
        }
      }),
    );
  }

  /** Creates a batch with two statements; undefined where a row must be retried alone. */
  private async createMany(batch: PendingCreate[]): Promise<(CreateResult | undefined)[]> {
    const results: (CreateResult | undefined)[] = batch.map(() => undefined);
    const column = <T>(pick: (item: PendingCreate) => T) => batch.map(pick);
    const inserted = await this.pool.query<{ n: string; winner: string }>(
      sql.insertPlants(column((item) => item.owner), column((item) => item.plant.id.toString()), column((item) => item.plant.name), column((item) => item.plant.tag)),
    );
    for (const row of inserted.rows) {
      const item = batch[Number(row.n) - 1];
      const winner = batch[Number(row.winner) - 1];
      if (item === undefined || winner === undefined) continue;
      const stored = { ...winner.plant };
      results[Number(row.n) - 1] = item === winner ? { outcome: 'created', stored } : { outcome: samePlant(item.plant, stored) ? 'unchanged' : 'conflict', stored };
    }
    // The rest met a row that was there before: read it in a new statement, which sees every
    // row committed by now (READ COMMITTED), like the single create does.
    const rest = batch.flatMap((item, index) => (results[index] === undefined ? [{ item, position: index + 1 }] : []));
    if (rest.length === 0) return results;
    const found = await this.pool.query<{ n: number; name: string; tag: string | null }>(
      sql.selectPlants(rest.map(({ item }) => item.owner), rest.map(({ item }) => item.plant.id.toString()), rest.map(({ position }) => position)),
    );
    for (const row of found.rows) {
      const item = batch[row.n - 1];
      if (item === undefined) continue;
      const stored = { id: item.plant.id, name: row.name, tag: row.tag };
      results[row.n - 1] = { outcome: samePlant(item.plant, stored) ? 'unchanged' : 'conflict', stored };
    }
    return results;
  }

  private async createOne(owner: string, plant: StoredPlant): Promise<CreateResult> {
    for (let attempt = 1; attempt <= CREATE_ATTEMPTS; attempt++) {
      // ON CONFLICT waits for a concurrent insert of the same key to commit or roll back, and
      // under READ COMMITTED the SELECT that follows is a new statement that sees the winner.
      const inserted = await this.query(sql.insertPlant(owner, plant.id, plant.name, plant.tag));
      if (inserted.rowCount === 1) return { outcome: 'created', stored: { ...plant } };
      const found = await this.query<Pick<PlantRow, 'name' | 'tag'>>(sql.selectPlant(owner, plant.id));
      const row = found.rows[0];
      if (row !== undefined) {
        return { outcome: samePlant(plant, row) ? 'unchanged' : 'conflict', stored: { id: plant.id, name: row.name, tag: row.tag } };
      }
      // The holder was deleted between the two statements: the id is free again, try once more.
    }
    throw new StoreUnavailableError('A plant id kept being created and deleted concurrently; try again.');
  }

  async listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    const result = await this.query<PlantRow>(sql.listPlants(owner, after, limit + 1));
    const plants = result.rows.map(toStoredPlant);
    const hasMore = plants.length > limit;
    if (hasMore) plants.pop();
    return { plants, hasMore };
  }

  streamPlants(owner: string, query: ListQuery): Promise<PlantStream> {
    return openPlantStream(this.pool, owner, query);
  }

  async deletePlant(owner: string, id: bigint): Promise<boolean> {
    const result = await this.query(sql.deletePlant(owner, id));
    return result.rowCount === 1;
  }

  async createToken(token: NewTokenRecord): Promise<void> {
    await this.query(sql.insertToken(token));
  }

  async createFirstToken(token: NewTokenRecord): Promise<boolean> {
    // The lock makes "is the table empty?" and the insert one step across all instances: after
    // waiting for it, the INSERT's snapshot sees any first token another instance committed.
    return guard(() =>
      inTransaction(this.pool, 'BEGIN', async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [FIRST_TOKEN_LOCK]);
        const inserted = await client.query(sql.insertFirstToken(token));
        return inserted.rowCount === 1;
      }),
    );
  }

  async findTokenByDigest(digest: Buffer): Promise<TokenRecord | undefined> {
    const result = await this.query<TokenRow>(sql.tokenByDigest(digest));
    const row = result.rows[0];
    return row === undefined ? undefined : toTokenRecord(row);
  }

  async listTokens(): Promise<TokenRecord[]> {
    const result = await this.query<TokenRow>(sql.tokens());
    return result.rows.map(toTokenRecord);
  }

  async revokeToken(id: string, at: Date): Promise<boolean> {
    const result = await this.query(sql.revokeToken(id, at));
    return result.rowCount === 1;
  }

  async touchToken(id: string, at: Date): Promise<void> {
    await this.query(sql.touchToken(id, at));
  }

  async ping(): Promise<void> {
    await this.query({ name: 'plantstore_ping', text: 'SELECT 1', values: [] });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
