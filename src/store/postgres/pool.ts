/**
 * The connection pool and the bounds that keep a request from hanging on a sick database:
 * a connect timeout, a server-side statement timeout and a client-side read timeout.
 */
import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';

/** Opening a connection gives up after this: a database that does not answer is soon a 503. */
export const CONNECT_TIMEOUT_MS = 3_000;
/**
 * Waiting for a free pool slot gives up after this. Longer than a connect, so that a burst of
 * requests queues for the pool's connections instead of failing, yet still bounded.
 */
export const POOL_WAIT_MS = 10_000;
/** The server cancels a statement running longer than this. */
const STATEMENT_TIMEOUT_MS = 4_000;
/** The client gives up on an answer after this, for when the server or the network went silent. */
const QUERY_TIMEOUT_MS = 5_000;
/** The server ends a transaction left idle this long; a safety net, streams close their own. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 5 * 60_000;

export interface PoolOptions {
  url: string;
  size: number;
  /** Told when an idle connection breaks; the pool has already dropped it. */
  onConnectionError?: (error: Error) => void;
}

/**
 * pg-pool reads connectionTimeoutMillis for the wait for a slot, and so does each client for its
 * connect; this client keeps its own, shorter bound.
 */
class BoundedClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    // pg-pool keeps the password as a property a spread does not copy, to keep it out of logs.
    super({ ...config, password: config?.password, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
}

/**
 * Session settings plantstore's statements are written for, insisted on even where the
 * server's, the database's or the role's default differs: synchronous_commit, for a 200
 * promises the write is on disk; READ COMMITTED, for a statement after an advisory lock must see
 * what the lock's previous holder committed (the first token, migrations), and concurrent
 * creates must not fail as serialization conflicts. pg lets a URL's `options` parameter replace
 * the pool's, so the URL is parsed here and these go last, where they win over the URL's.
 */
const SESSION_SETTINGS = '-c synchronous_commit=on -c default_transaction_isolation=read\\ committed';

function withSessionSettings(url: string): pg.ClientConfig {
  const config = parseIntoClientConfig(url);
  return { ...config, options: [config.options, SESSION_SETTINGS].filter(Boolean).join(' ') };
}

export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    ...withSessionSettings(options.url),
    Client: BoundedClient,
    max: options.size,
    connectionTimeoutMillis: POOL_WAIT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'plantstore',
  });
  // Without a listener an idle connection that breaks (database restart, network cut) would
  // crash the process; the pool has already dropped it, and the next query reconnects.
  pool.on('error', (error) => options.onConnectionError?.(error));
  return pool;
}

/** A pooled client held across statements (a transaction, a stream). */
export interface HeldClient {
  readonly client: pg.PoolClient;
  /** Returns the client; with a failure, the connection is closed instead of reused. */
  release(failure?: unknown): void;
}

/**
 * Takes a client out of the pool and listens for its errors while held: the pool stops
 * listening on checkout, and an unheard 'error' event would crash the process.
 */
export async function holdClient(pool: pg.Pool): Promise<HeldClient> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  let released = false;
  return {
    client,
    release(failure?: unknown) {
      if (released) return;
      released = true;
      client.off('error', onError);
      const reason = failure ?? broken;
      client.release(reason === undefined ? undefined : reason instanceof Error ? reason : new Error(String(reason)));
    },
  };
}

/**
 * Runs work in one transaction on one held client. On any failure the connection is closed,
 * which also rolls the transaction back, so a half-done transaction never returns to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const held = await holdClient(pool);
  try {
    await held.client.query('BEGIN');
    const result = await work(held.client);
    await held.client.query('COMMIT');
    held.release();
    return result;
  } catch (error) {
    held.release(error);
    throw error;
  }
}
