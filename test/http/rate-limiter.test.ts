import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { createRateLimiter, rateLimitHeader } from '../../src/http/rate-limit.js';
import { parseRateLimit } from '../../src/settings.js';

describe('RATE_LIMIT', () => {
  test('parses <n>/<window>', () => {
    assert.deepEqual(parseRateLimit('100/1s'), { requests: 100, windowMs: 1000 });
    assert.deepEqual(parseRateLimit('6000/m'), { requests: 6000, windowMs: 60_000 });
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
