/**
 * Boot: open the store, build the app, listen, print the first-start token; and close in order (stop accepting, drain
 * in-flight requests, close the database).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { issueToken } from './auth/api-tokens.js';
import { buildAuthenticator } from './auth/build-authenticator.js';
import { accessLog as createAccessLog } from './http/access-log.js';
import { FailureLog } from './http/failure-log.js';
import { respondToClientErrors } from './http/client-error.js';
import { PipelineOrder } from './http/pipelining.js';
import { Metrics } from './http/metrics.js';
import { createRateLimiter } from './http/rate-limit.js';
import { ResponseBatcher } from './http/response-batcher.js';
import { createLogger, type Logger } from './logger.js';
import { DEFAULT_DATABASE_URL, type Settings } from './settings.js';
import { briefReason } from './start-failure.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';
import { EndOfTurn } from './util/end-of-turn.js';

/** Slow clients: headers and whole requests must arrive within this time. */
const REQUEST_TIMEOUT_MS = 30_000;
const DRAIN_TIMEOUT_MS = 10_000;
/**
 * How long open connections go on being served after the drain begins, each closing after its
 * next response, before the idle ones are closed: a request sent on an idle connection as it
 * closes is lost without a response, and its client cannot tell whether it ran.
 */
const DRAIN_GRACE_MS = 1_000;

export interface RunningServer {
  url: string;
  server: Server;
  store: Store;
  logger: Logger;
  /** Stops accepting, lets in-flight requests finish, closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** The process's metrics (one per process, see http/metrics.ts); new ones by default. */
  metrics?: Metrics;
}

/**
 * On the first start with an empty token store, creates the admin token and prints it once.
 * The commands that make more use DATABASE_URL as the server does: without it they would make
 * tokens in a new ./data/plantstore.db that this server never reads.
 */
async function bootstrapToken(store: Store, databaseUrl: string): Promise<void> {
  const issued = await issueToken(store, { user: 'admin', onlyIfFirst: true });
  if (issued === undefined) return;
  process.stderr.write(
    [
      '',
      'plantstore: first start, so here is an API token for user "admin" (plants:read plants:write).',
      'It is shown only this once; keep it somewhere safe:',
      '',
      `    ${issued.token}`,
      '',
      'Make more tokens with: npx plantstore token create --user <name> [--read-only] [--expires-in 30d]',
      ...(databaseUrl === DEFAULT_DATABASE_URL ? [] : ["with this server's DATABASE_URL set (or --database-url), so that they go to its database."]),
      '',
      '',
    ].join('\n'),
  );
}

/** Logs the migrations a start applied; with `--workers` the supervisor applies them, and logs them so. */
export function logMigrations(logger: Logger): (applied: number) => void {
  return (applied) => {
    if (applied > 0) logger.info({ applied }, 'applied schema migrations');
  };
}

export async function startServer(settings: Settings, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(settings.logLevel);
  const metrics = options.metrics ?? new Metrics();
  const endOfTurn = new EndOfTurn();
  const store = await openStore({
    ...settings,
    endOfTurn,
    registry: metrics.registry,
    // The reason only: pg's error carries its whole client (settings, certificates) in `client`.
    onConnectionError: (err) => logger.warn({ reason: briefReason(err) }, 'a database connection broke; the store opens another'),
    onWriteBatch: (size, seconds) => metrics.observeWriteBatch(size, seconds),
    streamConnections: settings.streamsPerProcess,
    onMigrated: logMigrations(logger),
  });

  const responses = settings.responseBatching ? new ResponseBatcher(endOfTurn) : undefined;
  const rateLimiter =
    settings.rateLimit === undefined
      ? undefined
      : createRateLimiter({ limit: settings.rateLimit, redisUrl: settings.redisUrl, redisKeyPrefix: settings.redisKeyPrefix, logger });
  const authenticator = buildAuthenticator(settings, store, logger);
  const pipelines = new PipelineOrder(endOfTurn);
  const draining = new AbortController();
  const drainCut = new AbortController();
  const accessLog = createAccessLog(logger, metrics);
  const failures = new FailureLog(logger);
  const app = buildApp({ settings, store, authenticator, logger, metrics, accessLog, failures, responses, rateLimiter, pipelines, draining: draining.signal, drainCut: drainCut.signal });
  const server = createServer(
    {
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: REQUEST_TIMEOUT_MS,
      // Node checks those timeouts only this often (30 s by default, which would let a stall last 60 s).
      connectionsCheckingInterval: 1_000,
      keepAliveTimeout: 5_000,
      // The app answers a missing Host itself, with an Error body.
      requireHostHeader: false,
    },
    app,
  );
  // Without this node sends `100 Continue` before the app has seen the request; body.ts sends it
  // once the token and headers passed.
  server.on('checkContinue', app);
  // Any other expectation node would refuse with a bare 417; the app refuses it too, with an
  // Error body, in its turn among pipelined requests and with an access line.
  server.on('checkExpectation', app);
  const cutWaitingConnections = respondToClientErrors(server, pipelines, accessLog);
  try {
    await rateLimiter?.started;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(settings.port, settings.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // Only once the port is ours: a start that cannot listen must not spend the one-time token.
    if (settings.bootstrapToken) await bootstrapToken(store, settings.databaseUrl);
  } catch (error) {
    server.close();
    await rateLimiter?.close();
    await store.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const url = `http://${host}:${port}`;
  logger.info({ url, store: store.kind }, 'plantstore is listening');
  logger.flush(); // whoever waits for this line should not wait for the log buffer

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      draining.abort();
      // A busy keep-alive connection (a proxy's pool) would go on sending requests until the
      // force below cuts one off: each request from now on is answered with Connection: close.
      const closeAfterResponse = (_req: IncomingMessage, res: ServerResponse) => res.setHeader('connection', 'close');
      server.prependListener('request', closeAfterResponse);
      server.prependListener('checkContinue', closeAfterResponse);
      const force = setTimeout(() => {
        drainCut.abort(`the drain's limit of ${DRAIN_TIMEOUT_MS / 1000} s passed`);
        server.closeAllConnections();
        cutWaitingConnections();
      }, DRAIN_TIMEOUT_MS);
      const connected = await new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count ?? 0)));
      if (connected > 0) await new Promise((resolve) => setTimeout(resolve, DRAIN_GRACE_MS));
      // server.close also closes the connections that are idle by now.
      await new Promise<void>((resolve) => server.close(() => resolve()));
      clearTimeout(force);
      await rateLimiter?.close();
      await store.close();
      failures.flush();
      logger.info('plantstore stopped');
      logger.flush();
    })());

  return { url, server, store, logger, close };
}
