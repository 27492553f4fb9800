/**
 * `plantstore serve`: run the server until SIGTERM or SIGINT, then drain and exit 0.
 * With `--workers N` (N > 1) the process becomes a supervisor: it applies migrations once,
 * forks N workers that share one listening port (node:cluster), replaces a worker that dies,
 * and on SIGTERM or SIGINT lets every worker drain before it exits.
 */
import cluster, { type Worker } from 'node:cluster';
import { StoreUnavailableError } from './errors.js';
import { createLogger, type Logger } from './logger.js';
import type { Settings } from './settings.js';
import { startServer } from './server.js';
import { openStore } from './store/open-store.js';

/** A worker that dies sooner than this after its start is restarted only after RESPAWN_DELAY_MS. */
const QUICK_DEATH_MS = 5_000;
const RESPAWN_DELAY_MS = 1_000;
/** Workers that die this many times in a row without ever listening mean the start itself is broken. */
const MAX_FAILED_STARTS = 5;
const START_RETRY_MAX_MS = 10_000;

export async function serve(settings: Settings): Promise<void> {
  const logger = createLogger(settings.logLevel);
  if (settings.workers > 1 && cluster.isPrimary) return supervise(settings, logger);
  return serveOne(settings, logger);
}

/**
 * Runs a start step again while the database cannot be reached, so that instances started
 * before their database (or during its restart) come up by themselves once it answers.
 * A signal meanwhile ends the wait and the process, with status 0: nothing was in flight.
 */
async function whenDatabaseAnswers<T>(settings: Settings, logger: Logger, step: () => Promise<T>): Promise<T> {
  // An embedded database that cannot be opened (a directory, no permission) will not heal by waiting.
  if (settings.databaseUrl.startsWith('sqlite:')) return step();
  const quit = () => process.exit(0);
  process.once('SIGTERM', quit);
  process.once('SIGINT', quit);
  try {
    for (let delay = 500; ; delay = Math.min(delay * 2, START_RETRY_MAX_MS)) {
      try {
        return await step();
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        logger.error({ err: error, retryInMs: delay }, 'the database does not answer; retrying the start');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  } finally {
    process.off('SIGTERM', quit);
    process.off('SIGINT', quit);
  }
}

/** One serving process: the whole service, or one worker of the cluster. */
async function serveOne(settings: Settings, logger: Logger): Promise<void> {
  const running = await whenDatabaseAnswers(settings, logger, () => startServer(settings, { logger }));
  const stop = (signal: string) => {
    running.logger.info({ signal }, 'draining in-flight requests');
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        running.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

async function supervise(settings: Settings, logger: Logger): Promise<void> {
  // Migrate once here, so N workers do not all race to it (the lock would make it safe, but slow).
  const store = await whenDatabaseAnswers(settings, logger, () => openStore(settings));
  await store.close();

  const startedAt = new Map<Worker, number>();
  const listened = new Set<Worker>();
  const timers = new Set<NodeJS.Timeout>();
  let failedStarts = 0;
  let stopping = false;
  let exitCode = 0;

  const fork = () => startedAt.set(cluster.fork(), Date.now());
  const living = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
  const finish = () => {
    logger.info({ exitCode }, 'plantstore stopped');
    logger.flush();
    process.exit(exitCode);
  };

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
      if (code !== 0) exitCode = 1;
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
    // Each worker drains its own in-flight requests on SIGTERM and exits 0.
    for (const worker of workers) worker.process.kill('SIGTERM');
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  for (let i = 0; i < settings.workers; i++) fork();
  logger.info({ workers: settings.workers, port: settings.port }, 'plantstore supervisor started');
  logger.flush();
}
