/**
 * The `warn` lines of requests refused because something they need does not answer (a 503):
 * an outage refuses every request alike, so each reason is logged once, then once more at the
 * end of an interval with how many requests met it meanwhile. The access log keeps every request.
 */
import type { Logger } from '../logger.js';

/** Distinct reasons counted at once; past it, a line per request, as a bound on memory. */
const MAX_REASONS = 100;

export class FailureLog {
  /** Requests refused for each reason since its line, until its interval ends. */
  private readonly repeats = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  warn(reqId: string, reason: string): void {
    const repeats = this.repeats.get(reason);
    if (repeats !== undefined) {
      this.repeats.set(reason, repeats + 1);
      return;
    }
    this.logger.warn({ reqId, reason }, 'request failed');
    if (this.repeats.size >= MAX_REASONS) return;
    this.repeats.set(reason, 0);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.report(reason);
    }, this.intervalMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** Logs the counts not yet logged; the server calls this as it stops. */
  flush(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const reason of [...this.repeats.keys()]) this.report(reason);
  }

  private report(reason: string): void {
    const more = this.repeats.get(reason) ?? 0;
    this.repeats.delete(reason);
    if (more > 0) this.logger.warn({ reason, more, intervalMs: this.intervalMs }, 'more requests failed for the same reason');
  }
}
