/**
 * `plantstore serve`: run the server until SIGTERM or SIGINT, then drain and exit 0.
 * With `--workers N` (N > 1) the process becomes a supervisor: it applies migrations once,
 * forks N workers that share one listening port (node:cluster), replaces a worker that dies,
 * and on SIGTERM or SIGINT lets every worker drain before it exits.
 */
import cluster, { type Worker } from 'node:cluster';
import { StoreUnavailableError } from './errors.js';
import { ClusterMetrics, isMessage } from './http/cluster-metrics.js';
import { Metrics } from './http/metrics.js';
import { createLogger, logProcessWarnings, type Logger } from './logger.js';
import type { Settings } from './settings.js';
import { logMigrations, startServer } from './server.js';
import { StartError, asStartError, briefReason, isPermanentDatabaseFailure } from './start-failure.js';
import { openStore } from './store/open-store.js';

/** A worker that dies sooner than this after its start is restarted only after RESPAWN_DELAY_MS. */
const QUICK_DEATH_MS = 5_000;
const RESPAWN_DELAY_MS = 1_000;
/** Workers that die this many times in a row without ever listening mean the start itself is broken. */
const MAX_FAILED_STARTS = 5;
const START_RETRY_MAX_MS = 10_000;
/**
 * A worker drains within its own limit (server.ts); one that has not exited this long after
 * SIGTERM is stopped or hung, and is killed so that the service stops all the same.
 */
const WORKER_STOP_TIMEOUT_MS = 20_000;

/** A worker tells the supervisor why it could not start; the supervisor prints it once and stops. */
const START_FAILED = 'plantstore:start-failed';

interface StartFailedMessage {
  type: typeof START_FAILED;
  line: string;
}

/** Serves until SIGTERM or SIGINT. A start that cannot succeed rejects with a StartError. */
export async function serve(settings: Settings): Promise<void> {
  const logger = createLogger(settings.logLevel);
  logProcessWarnings(logger);
  try {
    if (settings.workers > 1 && cluster.isPrimary) return await supervise(settings, logger);
    return await serveOne(settings, logger);
  } catch (error) {
    throw asStartError(error, settings);
  }
}

/** Runs `handle` on the first SIGTERM or SIGINT only: the same signal may come twice (to the group, then from the supervisor). */
function onFirstSignal(handle: (signal: NodeJS.Signals) => void): () => void {
  let seen = false;
  const listener = (signal: NodeJS.Signals) => {
    if (seen) return;
    seen = true;
    handle(signal);
  };
  process.on('SIGTERM', listener);
  process.on('SIGINT', listener);
  return () => {
    process.off('SIGTERM', listener);
    process.off('SIGINT', listener);
  };
}

/**
 * Runs a start step again while the database cannot be reached, so that instances started
 * before their database (or during its restart) come up by themselves once it answers.
 * A signal between attempts ends the wait and the process, with status 0: nothing is in flight.
 * A signal during an attempt lets it finish: once it has started a server, the caller drains it.
 */
async function whenDatabaseAnswers<T>(settings: Settings, logger: Logger, step: () => Promise<T>): Promise<T> {
  // An embedded database that cannot be opened (a directory, no permission) will not heal by waiting.
  if (settings.databaseUrl.startsWith('sqlite:')) return step();
  let signalled = false;
  let endWait = () => {};
  const stopListening = onFirstSignal(() => {
    signalled = true;
    endWait();
  });
  try {
    for (let delay = 500; ; delay = Math.min(delay * 2, START_RETRY_MAX_MS)) {
      try {
        return await step();
      } catch (error) {
        // A missing database or a refused login stays so: stop now, with the line that says which.
        if (!(error instanceof StoreUnavailableError) || isPermanentDatabaseFailure(error)) throw error;
        if (!signalled) {
          logger.warn({ reason: briefReason(error), retryInMs: delay }, 'the database does not answer; retrying the start');
          await new Promise<void>((resolve) => {
            endWait = resolve;
            setTimeout(resolve, delay);
          });
        }
        if (signalled) process.exit(0);
      }
    }
  } finally {
    stopListening();
  }
}

/** One serving process: the whole service, or one worker of the cluster. */
async function serveOne(settings: Settings, logger: Logger): Promise<void> {
  // Listened for before the server listens: a process without a listener dies of the signal at
  // once, so one sent right after the "listening" line would kill rather than drain.
  const signalled = new Promise<NodeJS.Signals>((resolve) => onFirstSignal(resolve));
  let running;
  try {
    const metrics = new Metrics();
    running = await whenDatabaseAnswers(settings, logger, () => startServer(settings, { logger, metrics }));
  } catch (error) {
    const failure = asStartError(error, settings);
    const send = process.send?.bind(process);
    if (!cluster.isWorker || send === undefined || !(failure instanceof StartError)) throw failure;
    send({ type: START_FAILED, line: failure.message } satisfies StartFailedMessage, () => process.exit(1));
    return;
  }
  const server = running;
  void signalled.then((signal) => {
    server.logger.info({ signal }, 'draining in-flight requests');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

async function supervise(settings: Settings, logger: Logger): Promise<void> {
  // One listener from the start (a second put in its place later could miss a signal in
  // between): until the workers are forked nothing is in flight, so a signal ends the start with
  // status 0; after, it drains them.
  let forked = false;
  onFirstSignal((signal) => (forked ? stop(signal) : process.exit(0)));
  // Migrate once here, so N workers do not all race to it (the lock would make it safe, but slow).
  const store = await whenDatabaseAnswers(settings, logger, () => openStore({ ...settings, onMigrated: logMigrations(logger) }));
  await store.close();

  /**
   * The workers forked and not yet exited. Not cluster.workers: node keeps a worker there until
   * it has also disconnected, which may come after its 'exit'.
   */
  const startedAt = new Map<Worker, number>();
  const listened = new Set<Worker>();
  const timers = new Set<NodeJS.Timeout>();
  let failedStarts = 0;
  let stopping = false;
  let exitCode = 0;
  let startFailure: string | undefined;

  const fork = () => startedAt.set(cluster.fork(), Date.now());
  const living = () => [...startedAt.keys()];
  const finish = () => {
    logger.info({ exitCode }, 'plantstore stopped');
    logger.flush();
    if (startFailure !== undefined) process.stderr.write(`plantstore: ${startFailure}\n`);
    process.exit(exitCode);
  };

  new ClusterMetrics().start();
  cluster.on('message', (_worker, message: unknown) => {
    if (!isMessage<StartFailedMessage>(message, START_FAILED) || startFailure !== undefined) return;
    startFailure = message.line;
    exitCode = 1;
    stop('a worker cannot start');
  });

  cluster.on('listening', (worker) => {
    listened.add(worker);
    failedStarts = 0;
  });
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    const everListened = listened.has(worker);
    startedAt.delete(worker);
    listened.delete(worker);
    if (stopping) {
      // A worker still starting had nothing in flight: the signal ending its start is no failure.
      if (code !== 0 && everListened && startFailure === undefined) {
        exitCode = 1;
        logger.error({ worker: worker.process.pid, code, signal }, 'worker died while draining');
      }
      if (living().length === 0) finish();
      return;
    }
    failedStarts = everListened ? 0 : failedStarts + 1;
    if (failedStarts >= MAX_FAILED_STARTS) {
      logger.fatal({ failedStarts }, 'workers keep failing to start; stopping');
      exitCode = 1;
      stop('workers failing');
      return;
    }
    logger.error({ worker: worker.process.pid, code, signal }, 'worker died; starting a new one');
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopping) fork();
    }, lived < QUICK_DEATH_MS ? RESPAWN_DELAY_MS : 0);
    timers.add(timer);
  });

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    for (const timer of timers) clearTimeout(timer);
    logger.info({ signal, workers: living().length }, 'draining all workers');
    const workers = living();
    if (workers.length === 0) return finish();
    // Each worker drains its own in-flight requests on SIGTERM and exits 0; one that got the
    // signal already (sent to the whole process group) ignores this second one.
    for (const worker of workers) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of living()) {
        exitCode = 1;
        logger.error({ worker: worker.process.pid, timeoutMs: WORKER_STOP_TIMEOUT_MS }, 'worker did not stop after SIGTERM; killing it');
        worker.process.kill('SIGKILL');
      }
    }, WORKER_STOP_TIMEOUT_MS).unref();
  };
  forked = true;
  for (let i = 0; i < settings.workers; i++) fork();
  logger.info({ workers: settings.workers, port: settings.port }, 'plantstore supervisor started');
  logger.flush();
}
