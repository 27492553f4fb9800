/**
 * Writing responses: every answer starts here (sendJson or sendEmpty, whose bytes are held to
 * the end of the turn; startAnswer for streams and the rest), so each carries X-Request-Id; and
 * the one place that turns a failure into an Error body.
 */
import type { ServerResponse } from 'node:http';
import { ApiError, StoreUnavailableError, errors } from '../errors.js';
import type { RequestContext } from './context.js';

export const JSON_TYPE = 'application/json';

/** What answering needs of a request: its response and its id. */
export type Answerable = Pick<RequestContext, 'res' | 'requestId'>;

/**
 * A JSON answer with all its headers given to one writeHead: node:http's cheapest path (no
 * setHeader per header, measured at about 7 % of a cached GET). Headers set earlier (CORS) stay.
 * The head is formed now (so a bad header fails here, and the answer counts as sent); the bytes
 * go out at the end of the turn, with the turn's other answers (see holdBody).
 */
export function sendJson(ctx: Answerable, status: number, body: string, headers?: Record<string, string>): void {
  const list: (string | number)[] = ['content-type', JSON_TYPE, 'content-length', Buffer.byteLength(body), 'x-request-id', ctx.requestId];
  if (headers !== undefined) for (const name in headers) list.push(name, headers[name] as string);
  ctx.res.writeHead(status, list);
  holdBody(ctx.res, body);
}

/** An answer without a body (204), written like sendJson's. */
export function sendEmpty(ctx: Answerable, status: number): void {
  ctx.res.writeHead(status, ['x-request-id', ctx.requestId]);
  holdBody(ctx.res, undefined);
}

interface HeldAnswer {
  res: ServerResponse;
  body: string | undefined;
}

let held: HeldAnswer[] = [];

/**
 * Answers are written together in the check phase of the event-loop turn that produced them,
 * not one by one as each is ready: a run of writes back to back costs the kernel far less per
 * answer than writes interleaved with reading and parsing the turn's other requests (on
 * 127.0.0.1 each lone write also wakes the client; README "Performance"). An answer waits for
 * the rest of its turn, and behind any write batch that turn commits first; one given during
 * the check phase itself goes out in the next turn.
 */
function holdBody(res: ServerResponse, body: string | undefined): void {
  if (held.push({ res, body }) === 1) setImmediate(writeHeld);
}

function writeHeld(): void {
  const answers = held;
  held = [];
  for (const { res, body } of answers) {
    // node marks a response destroyed only when its socket's 'close' event runs, after this
    // phase: a client that reset its connection in this turn shows on the socket. A pipelined
    // answer has no socket of its own yet; its request's is the connection.
    if (res.destroyed || (res.socket ?? res.req.socket).destroyed) {
      res.destroy(); // nothing is written; the access line says 499
      continue;
    }
    res.end(body);
  }
}

/** Any other answer (a stream, OPTIONS' 204, another media type): its status and X-Request-Id; the caller adds the rest. */
export function startAnswer(ctx: Answerable, status: number): ServerResponse {
  ctx.res.statusCode = status;
  ctx.res.setHeader('x-request-id', ctx.requestId);
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

export function sendError(ctx: Answerable, error: ApiError): void {
  sendJson(ctx, error.status, JSON.stringify({ error: error.status, message: error.message }), error.headers as Record<string, string>);
}
