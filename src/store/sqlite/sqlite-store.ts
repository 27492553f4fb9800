/**
 * The embedded store: one connection for reads and writes on the event loop, through prepared
 * statements (microseconds each); writes grouped into shared commits whose fsync runs on a
 * thread of its own (write-batcher.ts, wal-sync.ts, fsync-thread.ts); exact caches of pages and
 * tokens (page-cache.ts, token-cache.ts); long lists from snapshot connections.
 */
import type Database from 'better-sqlite3';
import type { StoredPlant } from '../../plants/plant.js';
import type { CreateResult, ListQuery, NewTokenRecord, PlantPage, PlantStream, Scope, Store, TokenRecord } from '../store.js';
import { openConnection } from './connection.js';
import { migrate } from './migrations.js';
import { guard } from './guard.js';
import { PageCache } from './page-cache.js';
import { SnapshotStreams } from './snapshot-streams.js';
import { TokenCache } from './token-cache.js';
import { WalSync, walSyncFailed } from './wal-sync.js';
import { WriteBatcher } from './write-batcher.js';
import { prepareWriter, type WriteOp, type WriteResult } from './write-ops.js';

interface TokenRow {
  id: string;
  user_name: string;
  scopes: string;
  created_at: bigint;
  expires_at: bigint | null;
  last_used_at: bigint | null;
  revoked_at: bigint | null;
}

type PlantRow = [id: bigint, name: string, tag: string | null];

/** How stale the caches' view of other connections' commits may get within one long event-loop turn. */
const MAX_CHECK_AGE_MS = 1;

const TOKEN_COLUMNS = 'id, user_name, scopes, created_at, expires_at, last_used_at, revoked_at';

function date(ms: bigint | null): Date | null {
  return ms === null ? null : new Date(Number(ms));
}

/** A page's key in the page cache, among its owner's pages. */
function pageKey(after: bigint | undefined, limit: number): string {
  return after === undefined ? `${limit}` : `${limit} ${after}`;
}

function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    user: row.user_name,
    scopes: row.scopes.split(' ') as Scope[],
    createdAt: new Date(Number(row.created_at)),
    expiresAt: date(row.expires_at),
    lastUsedAt: date(row.last_used_at),
    revokedAt: date(row.revoked_at),
  };
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  private readonly wal: WalSync;
  private writer: WriteBatcher | undefined;
  private readonly tokenCache = new TokenCache();
  private readonly pageCache = new PageCache();
  /** PRAGMA data_version as last read: it moves when another connection commits. */
  private dataVersion = -1n;
  private checkedThisTurn = false;
  private checkedAt = 0;
  private readonly snapshots: SnapshotStreams;
  private statements: ReturnType<SqliteStore['prepare']> | undefined;

  /** `onWriteBatch` is told each group commit's size and the seconds until it was durable. */
  constructor(
    path: string,
    private readonly onWriteBatch: (size: number, seconds: number) => void = () => {},
  ) {
    this.db = guard(() => openConnection(path, { synchronous: 'NORMAL' }));
    this.wal = new WalSync(`${path}-wal`);
    this.snapshots = new SnapshotStreams(path);
  }

  async migrate(): Promise<number> {
    const applied = guard(() => migrate(this.db));
    if (applied > 0) await this.wal.durable();
    this.statements ??= this.prepare();
    if (this.writer === undefined) {
      const runBatch = prepareWriter(this.db);
      this.writer = new WriteBatcher(
        (ops) => {
          try {
            return runBatch(ops);
          } finally {
            this.forgetCachedReads(ops);
          }
        },
        this.wal,
        this.onWriteBatch,
      );
    }
    return applied;
  }

  private prepare() {
    const db = this.db;
    return {
      // Raw rows: arrays are far cheaper for better-sqlite3 to build than objects. `LIMIT ? + 0`:
      // a bare bound LIMIT makes SQLite re-prepare the statement on every call.
      listFromStart: db.prepare('SELECT id, name, tag FROM plants WHERE owner = ? ORDER BY id LIMIT ? + 0').raw(true),
      listAfter: db.prepare('SELECT id, name, tag FROM plants WHERE owner = ? AND id > ? ORDER BY id LIMIT ? + 0').raw(true),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      tokenByDigest: db.prepare(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE digest = ?`),
      tokens: db.prepare(`SELECT ${TOKEN_COLUMNS} FROM api_tokens ORDER BY created_at, id`),
      ping: db.prepare('SELECT 1'),
    };
  }

  /** After this connection's own writes, which PRAGMA data_version does not count. */
  private forgetCachedReads(ops: readonly WriteOp[]): void {
    for (const op of ops) {
      if (op.kind === 'createPlant' || op.kind === 'deletePlant') this.pageCache.forgetAround(op.owner, op.id);
      else this.tokenCache.clear();
    }
  }

  private get sql() {
    if (this.statements === undefined) throw new Error('SqliteStore used before migrate()');
    return this.statements;
  }

  /**
   * Makes sure the caches are current before a read (cached or not): PRAGMA data_version
   * tells whether another connection (`plantstore token revoke`, another instance) has committed
   * since it was last read, and if so the caches are dropped. It is read again in each turn of
   * the event loop, and within a long turn once a millisecond has passed (libuv may serve many
   * requests in one turn): a request that arrives after such a commit sees it, at worst a
   * millisecond late, so a revocation counts on the next request. Once per turn rather than per
   * request is what makes a cached read cheap.
   */
  private freshen(): void {
    this.wal.poll();
    if (!this.checkedThisTurn || performance.now() - this.checkedAt > MAX_CHECK_AGE_MS) {
      const version = guard(() => this.sql.dataVersion.get() as bigint);
      this.checkedAt = performance.now();
      if (!this.checkedThisTurn) {
        this.checkedThisTurn = true;
        setImmediate(this.nextTurn);
      }
      if (version !== this.dataVersion) {
        this.dataVersion = version;
        this.tokenCache.clear();
        this.pageCache.clear();
      }
    }
  }

  private read<T>(work: () => T): T {
    this.freshen();
    return guard(work);
  }

  private readonly nextTurn = (): void => {
    this.checkedThisTurn = false;
  };

  private async write(op: WriteOp): Promise<WriteResult> {
    if (this.writer === undefined) throw new Error('SqliteStore used before migrate()');
    this.wal.poll();
    return this.writer.write(op);
  }

  async createPlant(owner: string, plant: StoredPlant): Promise<CreateResult> {
    const result = await this.write({ kind: 'createPlant', owner, id: plant.id, name: plant.name, tag: plant.tag });
    if (result.kind !== 'createPlant') throw new Error('writer answered a create with the wrong result');
    return { outcome: result.outcome, stored: { id: plant.id, name: result.name, tag: result.tag } };
  }

  /** Served from the page cache when nothing has changed the owner's plants since it was read. */
  async listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    const cached = this.cachedPage(owner, after, limit);
    if (cached !== undefined) return cached;
    const { page, nextId } = guard(() => this.queryPage(owner, after, limit));
    this.pageCache.set(owner, pageKey(after, limit), page, { after, nextId });
    return page;
  }

  cachedPage(owner: string, after: bigint | undefined, limit: number): PlantPage | undefined {
    this.freshen();
    return this.pageCache.get(owner, pageKey(after, limit));
  }

  /** A page, and the id that follows it (undefined when none does). */
  private queryPage(owner: string, after: bigint | undefined, limit: number): { page: PlantPage; nextId: bigint | undefined } {
    const rows =
      after === undefined
        ? (this.sql.listFromStart.all(owner, limit + 1) as PlantRow[])
        : (this.sql.listAfter.all(owner, after, limit + 1) as PlantRow[]);
    const hasMore = rows.length > limit;
    const count = hasMore ? limit : rows.length;
    const plants = new Array<StoredPlant>(count);
    for (let i = 0; i < count; i++) {
      const [id, name, tag] = rows[i] as PlantRow;
      plants[i] = { id, name, tag };
    }
    return { page: { plants, hasMore }, nextId: hasMore ? (rows[limit] as PlantRow)[0] : undefined };
  }

  async streamPlants(owner: string, query: ListQuery): Promise<PlantStream> {
    return this.snapshots.open(owner, query);
  }

  async deletePlant(owner: string, id: bigint): Promise<boolean> {
    const result = await this.write({ kind: 'deletePlant', owner, id });
    return result.kind === 'changed' && result.changed;
  }

  private serializeToken(token: NewTokenRecord) {
    return {
      id: token.id,
      digest: Buffer.from(token.digest, 'hex'),
      user: token.user,
      scopes: token.scopes.join(' '),
      createdAt: token.createdAt.getTime(),
      expiresAt: token.expiresAt?.getTime() ?? null,
    };
  }

  async createToken(token: NewTokenRecord): Promise<void> {
    await this.write({ kind: 'createToken', token: this.serializeToken(token), onlyIfFirst: false });
  }

  async createFirstToken(token: NewTokenRecord): Promise<boolean> {
    const result = await this.write({ kind: 'createToken', token: this.serializeToken(token), onlyIfFirst: true });
    return result.kind === 'changed' && result.changed;
  }

  /** Cached until another connection commits (token-cache.ts), so a revocation counts on the next request. */
  async findTokenByDigest(digest: string): Promise<TokenRecord | undefined> {
    const cached = this.cachedToken(digest);
    if (cached !== undefined) return cached;
    const row = guard(() => this.sql.tokenByDigest.get(Buffer.from(digest, 'hex')) as TokenRow | undefined);
    if (row === undefined) return undefined;
    const record = toTokenRecord(row);
    this.tokenCache.set(digest, record);
    return record;
  }

  cachedToken(digest: string): TokenRecord | undefined {
    this.freshen();
    return this.tokenCache.get(digest);
  }

  async listTokens(): Promise<TokenRecord[]> {
    return this.read(() => (this.sql.tokens.all() as TokenRow[]).map(toTokenRecord));
  }

  async revokeToken(id: string, at: Date): Promise<boolean> {
    const result = await this.write({ kind: 'revokeToken', id, at: at.getTime() });
    return result.kind === 'changed' && result.changed;
  }

  async touchToken(id: string, at: Date): Promise<void> {
    await this.write({ kind: 'touchToken', id, at: at.getTime() });
  }

  async ping(): Promise<void> {
    const failed = this.wal.failed;
    if (failed !== undefined) throw walSyncFailed(failed);
    this.read(() => this.sql.ping.get());
  }

  async close(): Promise<void> {
    await this.writer?.drain();
    this.wal.close();
    this.snapshots.close();
    this.db.close();
  }
}
