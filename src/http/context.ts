import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal.js';

/** What a route handler gets: the raw request and response, the parsed URL, and the caller. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  /** The raw query string without '?', or '' when there is none. */
  query: string;
  /** The path parameter of a templated route (`/plants/{id}`). */
  param: string;
  /** Set before the handler runs on routes that need a token. */
  principal: Principal;
}

export type Handler = (ctx: RequestContext) => Promise<void> | void;
