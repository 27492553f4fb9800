/**
 * Optional per-owner rate limiting (RATE_LIMIT, off by default), counted by rate-limiter-flexible
 * in fixed windows. With REDIS_URL the counters live in Redis, so the limit holds for the whole
 * service, across --workers and instances. When Redis cannot answer, each process counts on its
 * own (the library's insurance limiter) until Redis is back: the service keeps serving, and says
 * so once. Without REDIS_URL each process counts on its own.
 */
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';
import type { RateLimit } from '../settings.js';
import { StartError } from '../start-failure.js';

/** A command to a Redis that went silent gives up after this, and the process counts on its own. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;
const REDIS_CONNECT_TIMEOUT_MS = 1_000;
const REDIS_RECONNECT_MAX_MS = 2_000;
/** After Redis failed a request, the next ones count locally for this long before Redis is tried again. */
const REDIS_RETRY_AFTER_FAILURE_MS = 2_000;
/** The policy's name in the RateLimit and RateLimit-Policy headers. */
const POLICY = '"owner"';

/**
 * What is wrong when `error` is Redis refusing what REDIS_URL asks for: its login (a wrong user
 * or password, or none where Redis wants one), its user's right to select the database, or its
 * database number (ioredis sends SELECT on each connect, reports Redis' answer as an 'error'
 * event, then calls the connection ready).
 * Undefined for any other error.
 */
function refusal(error: Error, url: string): string | undefined {
  const { hostname, port, pathname, searchParams, password } = new URL(url);
  const redis = `Redis at ${hostname}:${port || '6379'}`;
  if (/^NOAUTH\b/.test(error.message) && password === '') return `${redis} asks for a password, and REDIS_URL has none; add it (redis://:password@host:6379)`;
  if (/^(WRONGPASS|NOAUTH)\b/.test(error.message)) return `${redis} refused the login (${error.message}); fix the user name or password in REDIS_URL`;
  if (/^NOPERM\b/.test(error.message)) {
    return `${redis} does not let REDIS_URL's user select its database (${error.message}); allow it in the user's ACL (+select), or use another user`;
  }
  if ((error as { command?: { name?: unknown } }).command?.name !== 'select') return undefined;
  const database = pathname.slice(1) || searchParams.get('db');
  return `${redis} has no database ${database} (${error.message}); set REDIS_URL to one of its database numbers (0 to 15 by default)`;
}

/** What one request took from its owner's quota. */
export interface RateDecision {
  allowed: boolean;
  /** Requests left in this window after this one. */
  remaining: number;
  /** Seconds until the window ends and the quota is whole again. */
  resetSeconds: number;
}

export interface OwnerRateLimiter {
  /** The RateLimit-Policy header value (draft-ietf-httpapi-ratelimit-headers): `"owner";q=100;w=60`. */
  readonly policyHeader: string;
  /**
   * Resolves once Redis first answered or failed (at most a connect timeout), so the first
   * requests count where the rest do; rejects with a StartError when REDIS_URL is wrong for good.
   */
  readonly started: Promise<void>;
  consume(owner: string): Promise<RateDecision>;
  close(): Promise<void>;
}

/** The RateLimit header value for a decision: `"owner";r=37;t=12`. */
export function rateLimitHeader(decision: RateDecision): string {
  return `${POLICY};r=${decision.remaining};t=${decision.resetSeconds}`;
}

function decisionOf(result: RateLimiterRes, allowed: boolean): RateDecision {
  return { allowed, remaining: Math.max(0, result.remainingPoints), resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)) };
}

/**
 * The per-process counter Redis falls back to. rate-limiter-flexible calls `consume` when a
 * Redis command failed, which `onFailover` hears; `consumeHere` counts while Redis is skipped.
 */
class FallbackCounter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onFailover: () => void,
  ) {
    super(options);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>): Promise<RateLimiterRes> {
    this.onFailover();
    return super.consume(...args);
  }

  consumeHere(owner: string): Promise<RateLimiterRes> {
    return super.consume(owner);
  }
}

export interface RateLimiterOptions {
  limit: RateLimit;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  logger: Logger;
}

interface Counter {
  /** Counts one request of `owner`; rejects with a RateLimiterRes past the limit. */
  consume(owner: string): Promise<RateLimiterRes>;
  started: Promise<void>;
  close(): Promise<void>;
}

/**
 * Counts in Redis, falling back to `fallback` (this process) while Redis does not answer. After a
 * fallback, requests skip Redis for a moment, so that a Redis gone silent (which ioredis still
 * takes for connected) costs a command timeout only to the requests of each retry, not to all.
 */
function redisCounter(url: string, counting: { points: number; duration: number; keyPrefix: string }, logger: Logger): Counter {
  const redis = new Redis(url, {
    // Commands fail at once while disconnected, so requests never queue behind a lost Redis.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, REDIS_RECONNECT_MAX_MS),
  });
  // 'starting' until Redis first answers or fails: counting locally meanwhile is not worth a warning.
  let state: 'starting' | 'redis' | 'local' | 'closed' = 'starting';
  let skipRedisUntil = 0;
  /** Whether `started` has settled: a refusal after it can no longer stop the start. */
  let startSettled = false;
  const goLocal = (reason: string, always: boolean) => {
    skipRedisUntil = Date.now() + REDIS_RETRY_AFTER_FAILURE_MS;
    if (state === 'local' || state === 'closed' || (state === 'starting' && !always)) return;
    state = 'local';
    logger.warn({ reason }, 'Redis does not answer: RATE_LIMIT is counted per process until it is back');
  };
  // Heard on a reconnect, and on an answer over a connection that had only gone silent.
  const answered = () => {
    if (state === 'closed') return;
    if (state === 'local') logger.info('Redis answers again: RATE_LIMIT is counted in Redis');
    state = 'redis';
    skipRedisUntil = 0;
  };
  let settleStart: (refused: string | undefined) => void = () => {};
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => settleStart(undefined), REDIS_CONNECT_TIMEOUT_MS);
    settleStart = (refused) => {
      if (startSettled) return;
      startSettled = true;
      clearTimeout(timer);
      if (refused === undefined) resolve();
      else reject(new StartError(`cannot use Redis: ${refused}`));
    };
  });
  /** The refusal last logged; ioredis meets it again on every reconnect. */
  let refusalLogged: string | undefined;
  redis.on('error', (error: Error) => {
    const refused = refusal(error, url);
    // At start the refusal stops the start. Later (a Redis restarted with fewer databases or
    // another password) it is no outage but a setting to fix: say so rather than "does not answer".
    if (refused === undefined) goLocal(error.message, true);
    else if (startSettled && state !== 'closed' && refused !== refusalLogged) {
      refusalLogged = refused;
      logger.error({ reason: refused }, 'Redis refuses what REDIS_URL asks for');
    }
    settleStart(refused);
  });
  redis.on('ready', () => {
    refusalLogged = undefined;
    answered();
    settleStart(undefined);
  });
  let failovers = 0;
  const fallback = new FallbackCounter(counting, () => {
    failovers++;
    goLocal('a command failed or timed out', false);
  });
  const inRedis = new RateLimiterRedis({ ...counting, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: fallback });
  return {
    async consume(owner) {
      if (Date.now() < skipRedisUntil) return fallback.consumeHere(owner);
      const before = failovers;
      try {
        return await inRedis.consume(owner);
      } finally {
        if (failovers === before) answered(); // a result or a refusal, from Redis itself
      }
    },
    started,
    close: async () => {
      state = 'closed'; // the commands a disconnect cuts short are no outage
      redis.disconnect();
    },
  };
}

export function createRateLimiter(options: RateLimiterOptions): OwnerRateLimiter {
  const { limit } = options;
  const windowSeconds = limit.windowMs / 1000;
  // The quota in the key: a changed RATE_LIMIT must not go on counting in keys made for the old one.
  const counting = { points: limit.requests, duration: windowSeconds, keyPrefix: `${options.redisKeyPrefix}:${limit.requests}/${windowSeconds}` };
  let counter: Counter;
  if (options.redisUrl === undefined) {
    const local = new RateLimiterMemory(counting);
    counter = { consume: (owner) => local.consume(owner), started: Promise.resolve(), close: async () => undefined };
  } else {
    counter = redisCounter(options.redisUrl, counting, options.logger);
  }
  return {
    policyHeader: `${POLICY};q=${limit.requests};w=${windowSeconds}`,
    started: counter.started,
    async consume(owner) {
      try {
        return decisionOf(await counter.consume(owner), true);
      } catch (error) {
        if (error instanceof RateLimiterRes) return decisionOf(error, false);
        throw error;
      }
    },
    close: () => counter.close(),
  };
}
