import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Request-Id';
/** What a browser's script may read: every header the contract gives a meaning to. */
const EXPOSED_HEADERS = 'Link, Location, X-Request-Id, WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy';

/**
 * CORS headers for the origins listed in CORS_ORIGINS only (none by default); a preflight
 * (OPTIONS) also gets the methods and headers it may use. Other origins get no CORS headers.
 * Called only when some origin is listed; every response then says it varies by Origin, so a
 * cache never hands one origin's response to another.
 */
export function applyCors(allowedOrigins: ReadonlySet<string>, req: IncomingMessage, res: ServerResponse, allow: string): void {
  res.setHeader('vary', 'Origin');
  const origin = req.headers.origin;
  if (origin === undefined || !allowedOrigins.has(origin)) return;
  res.setHeader('access-control-allow-origin', origin);
  if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) {
    res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    return;
  }
  if (allow !== '') res.setHeader('access-control-allow-methods', allow); // none for a path that does not exist
  res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
  res.setHeader('access-control-max-age', '600');
}
