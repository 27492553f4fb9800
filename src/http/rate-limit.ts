/**
 * Optional per-owner rate limiting (RATE_LIMIT, off by default): a token bucket per owner in
 * this process. With N instances the whole service allows N times the rate; a global limit
 * belongs in the load balancer or gateway.
 */
import type { RateLimit } from '../settings.js';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const PRUNE_ABOVE = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = limit.requests / limit.windowMs;
  }

  /** Takes one request from the owner's bucket: 0 when allowed, else seconds until one is. */
  take(owner: string): number {
    const now = this.now();
    let bucket = this.buckets.get(owner);
    if (bucket === undefined) {
      if (this.buckets.size >= PRUNE_ABOVE) this.prune(now);
      bucket = { tokens: this.limit.requests, updatedAt: now };
      this.buckets.set(owner, bucket);
    } else {
      bucket.tokens = Math.min(this.limit.requests, bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs);
      bucket.updatedAt = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000));
  }

  /** Forgets owners whose bucket has refilled: they would start full anyway. */
  private prune(now: number): void {
    for (const [owner, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs >= this.limit.requests) this.buckets.delete(owner);
    }
  }
}
