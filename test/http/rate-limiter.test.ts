import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { pino } from 'pino';
import { createRateLimiter, rateLimitHeader } from '../../src/http/rate-limit.js';
import { parseRateLimit } from '../../src/settings.js';

describe('RATE_LIMIT', () => {
  test('parses <n>/<window>', () => {
    assert.deepEqual(parseRateLimit('100/1s'), { requests: 100, windowMs: 1000 });
    assert.deepEqual(parseRateLimit('6000/m'), { requests: 6000, windowMs: 60_000 });
    assert.deepEqual(parseRateLimit('999999999/1s'), { requests: 999_999_999, windowMs: 1000 }, 'nine digits of requests');
    assert.throws(() => parseRateLimit('1000000000/1s'), /must look like/);
    assert.deepEqual(parseRateLimit('5/2h'), { requests: 5, windowMs: 7_200_000 });
    for (const bad of ['', '100', '0/1s', '100/0s', '100/1d', '-1/1s', '1.5/1s']) assert.throws(() => parseRateLimit(bad), /must look like/);
    // A longer window would overflow the per-process counter's timer, which then limits nothing.
    assert.deepEqual(parseRateLimit('5/24h'), { requests: 5, windowMs: 86_400_000 });
    for (const long of ['2/600h', '2/25h', '2/1441m']) assert.throws(() => parseRateLimit(long), /window of at most 24h/);
  });

  test('without Redis: n requests per owner per window, counted in this process', async (t) => {
    const limiter = createRateLimiter({ limit: { requests: 3, windowMs: 60_000 }, redisUrl: undefined, redisKeyPrefix: 'test', logger: pino({ level: 'silent' }) });
    t.after(() => limiter.close());
    assert.equal(limiter.policyHeader, '"owner";q=3;w=60');
    const decisions = [await limiter.consume('a'), await limiter.consume('a'), await limiter.consume('a'), await limiter.consume('a')];
    assert.deepEqual(decisions.map((decision) => [decision.allowed, decision.remaining]), [[true, 2], [true, 1], [true, 0], [false, 0]]);
    for (const decision of decisions) assert.ok(decision.resetSeconds >= 59 && decision.resetSeconds <= 60);
    assert.equal((await limiter.consume('b')).allowed, true, 'owners have separate counts');
    assert.equal(rateLimitHeader({ allowed: true, remaining: 37, resetSeconds: 12 }), '"owner";r=37;t=12');
  });
});

test('the seconds until the reset are rounded up: never 0 while the window still runs', async (t) => {
  const limiter = createRateLimiter({ limit: { requests: 5, windowMs: 10_000 }, redisUrl: undefined, redisKeyPrefix: 'test', logger: pino({ level: 'silent' }) });
  t.after(() => limiter.close());
  await limiter.consume('a');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const decision = await limiter.consume('a');
  assert.equal(decision.remaining, 3);
  assert.equal(decision.resetSeconds, 10, 'some 9.95 s left: 10, not 9');
});

describe('a Redis that asks for a password', () => {
  /** A server that answers every command as a Redis with requirepass does to a client that has not logged in. */
  async function redisAskingPassword(t: TestContext): Promise<number> {
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.on('data', () => socket.write('-NOAUTH Authentication required.\r\n'));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.after(() => server.close());
    return (server.address() as AddressInfo).port;
  }

  const start = async (url: string) => {
    const limiter = createRateLimiter({ limit: { requests: 5, windowMs: 60_000 }, redisUrl: url, redisKeyPrefix: 'test', logger: pino({ level: 'silent' }) });
    try {
      await limiter.started;
      return 'started';
    } catch (error) {
      return (error as Error).message;
    } finally {
      await limiter.close();
    }
  };

  test('stops the start with a line that says REDIS_URL has none, when it has none', async (t) => {
    const port = await redisAskingPassword(t);
    assert.equal(await start(`redis://127.0.0.1:${port}`), `cannot use Redis: Redis at 127.0.0.1:${port} asks for a password, and REDIS_URL has none; add it (redis://:password@host:6379)`);
    assert.match(await start(`redis://:wrong@127.0.0.1:${port}`), /refused the login \(NOAUTH [^)]*\); fix the user name or password in REDIS_URL$/);
  });
});
