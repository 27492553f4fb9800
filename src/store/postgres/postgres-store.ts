/**
 * The PostgreSQL store: a connection pool shared by any number of plantstore instances on one
 * database. Each write is one autocommitted statement (the creates of one turn share one, in
 * create-batcher.ts), so a 200 or 204 is sent only after COMMIT, with synchronous_commit on.
 */
import type pg from 'pg';
import { plantsJson, type StoredPlant } from '../../plants/plant.js';
import { errors } from '../../errors.js';
import { StartError } from '../../start-failure.js';
import { EndOfTurn } from '../../util/end-of-turn.js';
import type { CreateResult, ListQuery, NewTokenRecord, PageQuery, PlantPage, PlantStream, Store, TokenCheck, TokenRecord } from '../store.js';
import { migrate } from './migrations.js';
import { CreateBatcher } from './create-batcher.js';
import { writeCreates } from './create-plants.js';
import { batchable, PageBatcher, type OptionalPlantRow } from './page-batcher.js';
import { TokenChecks } from './token-checks.js';
import { mapPgErrors, toStoreError } from './pg-errors.js';
import { openPlantStream } from './plant-stream.js';
import { createPool, inTransaction, type PoolOptions } from './pool.js';
import type { PoolStats } from './pool-metrics.js';
import { toTokenRecord, type TokenRow } from '../token-row.js';
import { toStoredPlant, type PlantRow } from './rows.js';
import { sql } from './statements.js';
import { StreamShare, maxStreamConnections } from './stream-share.js';

export interface PostgresStoreOptions extends PoolOptions {
  /** Told of each group commit of creates: how many it held, and the seconds it took. */
  onWriteBatch?: (size: number, seconds: number) => void;
  /** The server's end-of-turn steps, where the turn's batched statements are sent. */
  endOfTurn?: EndOfTurn;
}

/** The rows of a statement that checks a token with its work: no row at all means the token is not valid. */
function rowsIfTokenValid<Row extends pg.QueryResultRow>(result: pg.QueryResult<Row>): Row[] {
  if (result.rows.length === 0) throw errors.invalidToken();
  return result.rows;
}

/** pg_advisory_xact_lock key that serialises first-token creation: the ASCII of "plnttokn". */
export const FIRST_TOKEN_LOCK = '8100971276181400430';

export class PostgresStore implements Store {
  readonly kind = 'postgres';
  private readonly pool: pg.Pool;
  private readonly maxConnections: number;
  private readonly creates: CreateBatcher;
  private readonly streams: StreamShare;
  private readonly pages: PageBatcher;
  private readonly tokenChecks: TokenChecks;

  constructor(options: PostgresStoreOptions) {
    this.pool = createPool(options);
    this.maxConnections = options.size;
    const endOfTurn = options.endOfTurn ?? new EndOfTurn();
    this.creates = new CreateBatcher(writeCreates(this.pool), endOfTurn.schedule, options.onWriteBatch);
    this.streams = new StreamShare(maxStreamConnections(options.size));
    this.pages = new PageBatcher(this.pool, endOfTurn.schedule);
    this.tokenChecks = new TokenChecks(this.pool, endOfTurn.schedule);
    endOfTurn.set('sendQueries', () => {
      this.tokenChecks.send();
      this.pages.send();
      this.creates.send();
    });
  }

  get poolStats(): PoolStats {
    const pool = this.pool;
    return { max: this.maxConnections, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }

  private query<Row extends pg.QueryResultRow>(statement: pg.QueryConfig<unknown[]>): Promise<pg.QueryResult<Row>> {
    return mapPgErrors(() => this.pool.query<Row>(statement));
  }

  async migrate(): Promise<number> {
    try {
      return await migrate(this.pool);
    } catch (error) {
      // A schema newer than this build, or an encoding other than UTF8, is no outage: waiting would not end it.
      throw error instanceof StartError ? error : toStoreError(error);
    }
  }

  createPlant(owner: string, plant: StoredPlant): Promise<CreateResult> {
    return this.creates.create(owner, plant);
  }

  async getPlant(owner: string, id: bigint, token?: TokenCheck): Promise<StoredPlant | undefined> {
    const row = rowsIfTokenValid(await this.query<OptionalPlantRow>(sql.checkedPlant(token?.digest, owner, id)))[0];
    return row === undefined || row.id === null ? undefined : toStoredPlant(row as PlantRow);
  }

  async listPlants(owner: string, query: PageQuery, token?: TokenCheck): Promise<PlantPage> {
    const { limit, after, tag } = query;
    let rows: OptionalPlantRow[];
    if (batchable(after, tag)) {
      const found = await this.pages.read({ owner, after, limit: limit + 1, digest: token?.digest });
      if (found === undefined) throw errors.invalidToken();
      rows = found;
    } else {
      rows = rowsIfTokenValid(await this.query<OptionalPlantRow>(sql.checkedListPlants(token?.digest, owner, query, limit + 1)));
    }
    const plants: StoredPlant[] = [];
    for (const row of rows) if (row.id !== null) plants.push(toStoredPlant(row as PlantRow));
    const hasMore = plants.length > limit;
    if (hasMore) plants.pop();
    return { members: plantsJson(plants, query.fields), nextAfter: hasMore ? plants.at(-1)?.id : undefined };
  }

  streamPlants(owner: string, query: ListQuery, token?: TokenCheck): Promise<PlantStream> {
    return this.streams.open(() => openPlantStream(this.pool, owner, query, token));
  }

  async deletePlant(owner: string, id: bigint, token?: TokenCheck): Promise<boolean> {
    const row = rowsIfTokenValid(await this.query<{ deleted: number }>(sql.checkedDeletePlant(token?.digest, owner, id)))[0];
    return row?.deleted === 1;
  }

  async createToken(token: NewTokenRecord): Promise<void> {
    await this.query(sql.insertToken(token));
  }

  async createFirstToken(token: NewTokenRecord): Promise<boolean> {
    // The lock makes "is the table empty?" and the insert one step across all instances: after
    // waiting for it, the INSERT's snapshot (READ COMMITTED, pool.ts) sees any first token
    // another instance committed.
    return mapPgErrors(() =>
      inTransaction(this.pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [FIRST_TOKEN_LOCK]);
        const inserted = await client.query(sql.insertFirstToken(token));
        return inserted.rowCount === 1;
      }),
    );
  }

  isTokenValid(digest: string): Promise<boolean> {
    return this.tokenChecks.isValid(digest);
  }

  async findTokenByDigest(digest: string): Promise<TokenRecord | undefined> {
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
