/**
 * Writing responses: every answer starts here (sendJson or sendEmpty, held to the end of the
 * turn; startAnswer for streams and the rest), so each carries X-Request-Id; and the one place
 * that turns a failure into an Error body.
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
 * Written at the end of the event-loop turn, with the turn's other answers (see holdAnswer).
 */
export function sendJson(ctx: Answerable, status: number, body: string, headers?: Record<string, string>): void {
  const list: (string | number)[] = ['content-type', JSON_TYPE, 'content-length', Buffer.byteLength(body), 'x-request-id', ctx.requestId];
  if (headers !== undefined) for (const name in headers) list.push(name, headers[name] as string);
  holdAnswer({ res: ctx.res, status, headers: list, body });
}

/** An answer without a body (204), written like sendJson's. */
export function sendEmpty(ctx: Answerable, status: number): void {
  holdAnswer({ res: ctx.res, status, headers: ['x-request-id', ctx.requestId], body: undefined });
}

interface HeldAnswer {
  res: ServerResponse;
  status: number;
  headers: (string | number)[];
  body: string | undefined;
}

let held: HeldAnswer[] = [];

/**
 * Answers are written together in the check phase of the event-loop turn that produced them,
 * not one by one as each is ready. A run of writes back to back costs the kernel far less per
 * answer than writes interleaved with reading and parsing the turn's other requests (on
 * 127.0.0.1 each lone write also wakes the client; `npm run bench`, README "Performance"). An
 * answer waits at most for the rest of its turn.
 */
function holdAnswer(answer: HeldAnswer): void {
  if (held.push(answer) === 1) setImmediate(writeHeld);
}

function writeHeld(): void {
  const answers = held;
  held = [];
  for (const { res, status, headers, body } of answers) {
    if (res.destroyed) continue; // the client left; the access line says 499
    try {
      res.writeHead(status, headers);
      res.end(body);
    } catch {
      res.destroy(); // headers we built failed node's checks: a bug, and the access line shows 499
    }
  }
}

/** True while an answer for `res` waits for the end of its turn: it counts as sent. */
export function isAnswerHeld(res: ServerResponse): boolean {
  return held.some((answer) => answer.res === res);
}

/** Any other answer (a stream, a 204, another media type): its status and X-Request-Id; the caller adds the rest. */
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
