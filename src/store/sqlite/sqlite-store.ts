/**
 * The embedded store: one connection on the event loop for reads, through prepared statements,
 * which answer at once and share one read transaction per turn (turn-reads.ts), pages coming
 * back as JSON made by SQLite (page-reads.ts); writes grouped into shared commits
 * (write-batcher.ts) that a writer thread makes and syncs before any connection can see them
 * (writer-thread.ts); long lists stream from snapshot connections (snapshot-streams.ts).
 */
import type Database from 'better-sqlite3';
import { errors } from '../../errors.js';
import type { StoredPlant } from '../../plants/plant.js';
import { EndOfTurn } from '../../util/end-of-turn.js';
import type { CreateResult, ListQuery, NewTokenRecord, PageQuery, PlantPage, PlantStream, Store, TokenCheck, TokenRecord } from '../store.js';
import { TOKEN_COLUMNS, toTokenRecord, type TokenRow } from '../token-row.js';
import { openConnection } from './connection.js';
import { migrate } from './migrations.js';
import { DatabaseFiles } from './database-files.js';
import { PageReads } from './page-reads.js';
import { SnapshotStreams } from './snapshot-streams.js';
import { TurnReads } from './turn-reads.js';
import { mapSqliteErrors } from './sqlite-errors.js';
import { WriteBatcher } from './write-batcher.js';
import type { SerializedToken, WriteOp } from './write-ops.js';
import { Writer } from './writer.js';

export interface SqliteStoreOptions {
  /** Where each turn's writes go to the writer thread and its read transaction ends; the server shares its own. */
  endOfTurn?: EndOfTurn;
  /** Told each group commit's size and the seconds it took. */
  onWriteBatch?: (size: number, seconds: number) => void;
  /** Most snapshot connections open at once for streamed lists. */
  streamConnections?: number;
  /** Told when the writer thread died; the store starts another by itself. */
  onConnectionError?: (error: Error) => void;
  /** Told how many schema migrations opening applied. */
  onMigrated?: (applied: number) => void;
}

function prepareReads(db: Database.Database) {
  return {
    plant: db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?').raw(true),
    tokenByDigest: db.prepare(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE digest = ?`),
    validToken: db.prepare('SELECT 1 FROM api_tokens WHERE digest = ? AND revoked_at IS NULL').pluck(true),
    tokens: db.prepare(`SELECT ${TOKEN_COLUMNS} FROM api_tokens ORDER BY created_at, id`),
    ping: db.prepare('SELECT 1'),
  };
}

function serializeToken(token: NewTokenRecord): SerializedToken {
  return {
    id: token.id,
    digest: token.digest,
    user: token.user,
    scopes: token.scopes.join(' '),
    createdAt: token.createdAt.getTime(),
    expiresAt: token.expiresAt?.getTime() ?? null,
  };
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private readonly sql: ReturnType<typeof prepareReads>;
  private readonly pages: PageReads;
  private readonly writerThread: Writer;
  private readonly writes: WriteBatcher;
  private readonly snapshots: SnapshotStreams;
  private readonly reads: TurnReads;
  private readonly files: DatabaseFiles;

  /** Opens (creating it if needed) and migrates the database at `path`. */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    const db = mapSqliteErrors(() => openConnection(path));
    try {
      const applied = mapSqliteErrors(() => migrate(db));
      const store = new SqliteStore(db, path, options);
      options.onMigrated?.(applied);
      return store;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  private constructor(
    private readonly db: Database.Database,
    path: string,
    options: SqliteStoreOptions,
  ) {
    this.sql = prepareReads(db);
    this.pages = new PageReads(db);
    this.files = new DatabaseFiles(path);
    const endOfTurn = options.endOfTurn ?? new EndOfTurn();
    this.reads = new TurnReads(db, endOfTurn);
    this.writerThread = new Writer(path, options.onConnectionError);
    endOfTurn.set('takeWriteAnswer', () => this.writerThread.takeAnswer());
    const runBatch = async (ops: WriteOp[]) => {
      const results = await this.writerThread.run(ops);
      this.reads.end(); // before anyone is told: a read after the response sees the write
      return results;
    };
    this.writes = new WriteBatcher(runBatch, endOfTurn, options.onWriteBatch);
    this.snapshots = new SnapshotStreams(path, options.streamConnections);
  }

  async migrate(): Promise<number> {
    this.reads.end();
    return mapSqliteErrors(() => migrate(this.db));
  }

  /** Throws the 401 when the caller's token is no longer stored unrevoked. */
  private checkToken(token: TokenCheck | undefined): void {
    if (token !== undefined && !this.isTokenValid(token.digest)) throw errors.invalidToken();
  }

  async createPlant(owner: string, plant: StoredPlant): Promise<CreateResult> {
    const result = await this.writes.write({ kind: 'createPlant', owner, id: plant.id, name: plant.name, tag: plant.tag });
    if (result.kind !== 'createPlant') throw new Error('writer answered a create with the wrong result');
    return { outcome: result.outcome, stored: { id: plant.id, name: result.name, tag: result.tag } };
  }

  getPlant(owner: string, id: bigint, token?: TokenCheck): StoredPlant | undefined {
    this.checkToken(token);
    const row = this.reads.run(() => this.sql.plant.get(owner, id) as [string, string | null] | undefined);
    return row === undefined ? undefined : { id, name: row[0], tag: row[1] };
  }

  listPlants(owner: string, query: PageQuery, token?: TokenCheck): PlantPage {
    this.checkToken(token);
    return this.reads.run(() => this.pages.read(owner, query));
  }

  streamPlants(owner: string, query: ListQuery, token?: TokenCheck): Promise<PlantStream> {
    this.checkToken(token);
    return this.snapshots.open(owner, query);
  }

  async deletePlant(owner: string, id: bigint, token?: TokenCheck): Promise<boolean> {
    this.checkToken(token);
    const result = await this.writes.write({ kind: 'deletePlant', owner, id });
    return result.kind === 'changed' && result.changed;
  }

  async createToken(token: NewTokenRecord): Promise<void> {
    await this.writes.write({ kind: 'createToken', token: serializeToken(token), onlyIfFirst: false });
  }

  async createFirstToken(token: NewTokenRecord): Promise<boolean> {
    const result = await this.writes.write({ kind: 'createToken', token: serializeToken(token), onlyIfFirst: true });
    return result.kind === 'changed' && result.changed;
  }

  isTokenValid(digest: string): boolean {
    return this.reads.run(() => this.sql.validToken.get(Buffer.from(digest, 'hex'))) !== undefined;
  }

  findTokenByDigest(digest: string): TokenRecord | undefined {
    const row = this.reads.run(() => this.sql.tokenByDigest.get(Buffer.from(digest, 'hex')) as TokenRow | undefined);
    return row === undefined ? undefined : toTokenRecord(row);
  }

  async listTokens(): Promise<TokenRecord[]> {
    return this.reads.run(() => (this.sql.tokens.all() as TokenRow[]).map(toTokenRecord));
  }

  async revokeToken(id: string, at: Date): Promise<boolean> {
    const result = await this.writes.write({ kind: 'revokeToken', id, at: at.getTime() });
    return result.kind === 'changed' && result.changed;
  }

  async touchToken(id: string, at: Date): Promise<void> {
    await this.writes.write({ kind: 'touchToken', id, at: at.getTime() });
  }

  async ping(): Promise<void> {
    this.writerThread.checkAlive();
    this.files.checkInPlace();
    this.reads.run(() => this.sql.ping.get());
  }

  async close(): Promise<void> {
    await this.writes.drain();
    await this.writerThread.close();
    this.snapshots.close();
    this.reads.end();
    this.db.close();
  }
}
