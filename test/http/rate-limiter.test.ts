import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { parseRateLimit } from '../../src/settings.js';

describe('RATE_LIMIT', () => {
  test('parses <n>/<window>', () => {
    assert.deepEqual(parseRateLimit('100/1s'), { requests: 100, windowMs: 1000 });
    assert.deepEqual(parseRateLimit('6000/m'), { requests: 6000, windowMs: 60_000 });
    assert.deepEqual(parseRateLimit('5/2h'), { requests: 5, windowMs: 7_200_000 });
    for (const bad of ['', '100', '0/1s', '100/0s', '100/1d', '-1/1s', '1.5/1s']) assert.throws(() => parseRateLimit(bad), /must look like/);
  });

  test('allows a burst of n per owner, then refills at n per window', () => {
    let now = 0;
    const limiter = new RateLimiter({ requests: 3, windowMs: 3000 }, () => now);
    assert.deepEqual([limiter.take('a'), limiter.take('a'), limiter.take('a')], [0, 0, 0]);
    assert.equal(limiter.take('a'), 1, 'the 4th request waits about a second');
    assert.equal(limiter.take('b'), 0, 'owners have separate buckets');
    now += 1000;
    assert.equal(limiter.take('a'), 0);
    assert.equal(limiter.take('a'), 1);
  });
});
