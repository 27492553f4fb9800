import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import type { ResponseBatcher } from './response-batcher.js';

/** A client's own X-Request-Id is kept when it matches this; otherwise the server makes one. */
export const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's own X-Request-Id, when it sent one the server keeps. */
export function clientRequestId(req: IncomingMessage): string | undefined {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : undefined;
}

/** What a route handler gets: the raw request and response, and its URL split in path parameter and query. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  /** The raw query string without '?', or '' when there is none. */
  query: string;
  /** The path parameter of a templated route (`/plants/{id}`). */
  param: string;
  /** Where JSON and empty responses wait for the end of the turn; undefined when batching is off. */
  responses: ResponseBatcher | undefined;
}

/** A handler of a public route. */
export type Handler = (ctx: RequestContext) => MaybePromise<void>;
/** A handler of a route that needs a token: it is given the caller the token stands for. */
export type AuthorizedHandler = (ctx: RequestContext, principal: Principal) => MaybePromise<void>;
