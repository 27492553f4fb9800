/** When to retry a 503 or 429: after its Retry-After, else after a doubling pause. */

/** The pause before retry number `attempt` (0 for the first retry), in milliseconds. */
export function retryDelayMs(retryAfter: string | null, attempt: number, nowMs: number = Date.now()): number {
  const value = retryAfter?.trim() ?? '';
  // RFC 9110 gives whole seconds; a fraction from a lenient proxy is read as seconds too, not as a date.
  if (/^[0-9]+(\.[0-9]+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = value === '' ? NaN : Date.parse(value);
  if (!Number.isNaN(date)) return Math.max(0, date - nowMs);
  return 250 * 2 ** attempt;
}

/** A pause that works in Node and in browsers, cut short with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}
