/**
 * The `warn` lines of requests refused because something they need does not answer (a 503):
 * an outage refuses every request alike, so each reason is logged once, then once more at the
 * end of an interval with how many requests met it meanwhile. The access log keeps every request.
 */
import type { Logger } from '../logger.js';

/** Distinct reasons counted at once; past it, a line per request, as a bound on memory. */
const MAX_REASONS = 100;

export class FailureLog {
  /** Each reason logged within its interval: the requests refused for it since, and the timer that reports them. */
  private readonly counting = new Map<string, { more: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  warn(reqId: string, reason: string): void {
    const counted = this.counting.get(reason);
    if (counted !== undefined) {
      counted.more++;
      return;
    }
    this.logger.warn({ reqId, reason }, 'request failed');
    if (this.counting.size >= MAX_REASONS) return;
    const timer = setTimeout(() => this.report(reason), this.intervalMs);
    timer.unref();
    this.counting.set(reason, { more: 0, timer });
  }

  /** Logs the counts not yet logged; the server calls this as it stops. */
  flush(): void {
    for (const reason of [...this.counting.keys()]) this.report(reason);
  }

  private report(reason: string): void {
    const counted = this.counting.get(reason);
    if (counted === undefined) return;
    clearTimeout(counted.timer);
    this.counting.delete(reason);
    if (counted.more > 0) this.logger.warn({ reason, more: counted.more, intervalMs: this.intervalMs }, 'more requests failed for the same reason');
  }
}
