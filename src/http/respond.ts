/**
 * Writing responses: every response of the app starts here (sendJson or sendEmpty, whose bytes
 * may wait for the end of the turn; startResponse for streams and the rest), so each carries
 * X-Request-Id and the headers every API response has; and the one place that turns a failure
 * into an Error body. Requests the app never sees (a parser error, CONNECT) are answered by
 * client-error.ts.
 */
import type { ServerResponse } from 'node:http';
import { ApiError, StoreUnavailableError, errors } from '../errors.js';
import type { RequestContext } from './context.js';

export const JSON_TYPE = 'application/json';

/** What responding needs of a request. */
export type Respondable = Pick<RequestContext, 'res' | 'requestId' | 'responses'>;

/**
 * A JSON response with all its headers given to one writeHead, node:http's cheapest path.
 * Headers set earlier (CORS) stay. The head is formed now, so a bad header fails here.
 */
export function sendJson(ctx: Respondable, status: number, body: string, headers?: Record<string, string>): void {
  const list: (string | number)[] = [
    'content-type', JSON_TYPE,
    'content-length', Buffer.byteLength(body),
    'x-request-id', ctx.requestId,
    'x-content-type-options', 'nosniff',
    'cache-control', 'no-store',
  ];
  if (headers !== undefined) for (const name in headers) list.push(name, headers[name] as string);
  ctx.res.writeHead(status, list);
  end(ctx, body);
}

/** A response without a body (204), written like sendJson's. */
export function sendEmpty(ctx: Respondable, status: number): void {
  ctx.res.writeHead(status, ['x-request-id', ctx.requestId, 'x-content-type-options', 'nosniff', 'cache-control', 'no-store']);
  end(ctx, undefined);
}

function end(ctx: Respondable, body: string | undefined): void {
  if (ctx.responses === undefined) ctx.res.end(body);
  else ctx.responses.hold(ctx.res, body);
}

/**
 * Any other response (a stream, OPTIONS' 204, another media type): its status and the headers
 * every response has; the caller adds the rest, and may replace cache-control.
 */
export function startResponse(ctx: Respondable, status: number): ServerResponse {
  ctx.res.statusCode = status;
  ctx.res.setHeader('x-request-id', ctx.requestId);
  ctx.res.setHeader('x-content-type-options', 'nosniff');
  ctx.res.setHeader('cache-control', 'no-store');
  return ctx.res;
}

/**
 * Maps any thrown value to the ApiError the client sees: ApiErrors as they are, an
 * unavailable store as 503, anything else as a generic 500 (the caller logs the details).
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) return errors.unavailable();
  return errors.internal();
}

export function sendError(ctx: Respondable, error: ApiError): void {
  sendJson(ctx, error.status, JSON.stringify({ error: error.status, message: error.message }), error.headers as Record<string, string>);
}
