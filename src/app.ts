/**
 * buildApp: the request listener, built from the parts server.ts injects. Checks run in the
 * contract's order (docs/contract.md, "Order of checks"): Host, path, method, token and scope,
 * rate limit, then the route's own.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Authenticator } from './auth/authenticator.js';
import type { PendingToken, Principal } from './auth/principal.js';
import { ApiError, errors } from './errors.js';
import type { AccessLog } from './http/access-log.js';
import type { FailureLog } from './http/failure-log.js';
import type { RequestContext } from './http/context.js';
import { applyCors } from './http/cors.js';
import type { Metrics } from './http/metrics.js';
import { opsRoutes } from './http/ops-routes.js';
import { PipelineOrder } from './http/pipelining.js';
import { plantRoutes } from './http/plants-routes.js';
import type { ResponseBatcher } from './http/response-batcher.js';
import { sendError, startResponse, toApiError } from './http/respond.js';
import { rateLimitHeader, type OwnerRateLimiter } from './http/rate-limit.js';
import { Router, type Match } from './http/router.js';
import { StreamAdmission } from './http/stream-admission.js';
import type { Logger } from './logger.js';
import type { Settings } from './settings.js';
import type { Store } from './store/store.js';
import { andThen, orElse, type MaybePromise } from './util/maybe-promise.js';

export interface AppParts {
  settings: Pick<Settings, 'bodyLimit' | 'corsOrigins' | 'streamsPerOwner' | 'streamsPerProcess' | 'streamDeadlineMs'>;
  store: Store;
  authenticator: Authenticator;
  logger: Logger;
  metrics: Metrics;
  /** Request ids, access lines and request counts, shared with the answers to parser refusals. */
  accessLog: AccessLog;
  /** Why requests got a 503, a line per reason and interval. */
  failures: FailureLog;
  /** Counts each owner's requests on the routes that need a token (RATE_LIMIT); none when off. */
  rateLimiter?: OwnerRateLimiter;
  /** Holds responses to the end of the turn (RESPONSE_BATCHING); without it each is sent at once. */
  responses?: ResponseBatcher;
  /** Orders pipelined requests; the server shares it with its answers to parser errors. */
  pipelines: PipelineOrder;
  /** Aborted when the server starts to drain: /readyz answers 503 from then on. */
  draining: AbortSignal;
  /** Aborted when the drain's time is up and the server cuts what is left: those responses say so. */
  drainCut: AbortSignal;
}

const CLIENT_CLOSED_REQUEST = 499;

/**
 * The path and query of a request target. Servers must also accept the absolute form
 * (`GET http://host/plants`, RFC 9112 §3.2.2); anything else that is not a path matches no route.
 */
function originForm(target: string): string {
  if (target.charCodeAt(0) === 0x2f) return target;
  if (!URL.canParse(target)) return target;
  const url = new URL(target);
  return url.pathname + url.search;
}

/**
 * How many lines of each header a request may carry once: node keeps only the first in `headers`.
 * RFC 9112 §3.2 wants exactly one Host; two Authorization or Content-Type lines are ambiguous,
 * and a proxy in front may have read the other one, so they are refused rather than resolved.
 */
function singleHeaderLines(rawHeaders: readonly string[]): { host: number; authorization: number; contentType: number } {
  const count = { host: 0, authorization: 0, contentType: 0 };
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    // The length first: most names are none of the three, and need no lowercase copy.
    if (name.length === 4 && name.toLowerCase() === 'host') count.host++;
    else if (name.length === 13 && name.toLowerCase() === 'authorization') count.authorization++;
    else if (name.length === 12 && name.toLowerCase() === 'content-type') count.contentType++;
  }
  return count;
}

/**
 * Refusals a request can meet before the store has checked its token: a bad query, the rate
 * limit, streams busy. (Body refusals cannot: a route that reads a body confirms its token first.)
 */
const REFUSED_BEFORE_STORE = new Set([400, 429, 503]);

/**
 * Runs a request whose token the store checks with its own read. When the request is refused
 * before that (a bad query, the rate limit), the token is checked first, so that a revoked token
 * is still answered 401, as the contract orders. A token the store refused is forgotten, so that
 * its next use is refused before the rate limit counts it.
 */
function checkingToken(pending: PendingToken, work: () => MaybePromise<void>): MaybePromise<void> {
  return orElse(work, (error) => {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 401) pending.forget();
    if (!REFUSED_BEFORE_STORE.has(error.status)) throw error;
    return andThen(pending.confirm(), () => {
      throw error;
    });
  });
}

export function buildApp(parts: AppParts): RequestListener {
  const { settings, store, authenticator, logger, metrics, accessLog, failures, responses, rateLimiter, pipelines, draining, drainCut } = parts;
  const corsOrigins = new Set(settings.corsOrigins);
  const router = new Router();
  const admission = new StreamAdmission({ perOwner: settings.streamsPerOwner, perProcess: settings.streamsPerProcess });
  const plants = plantRoutes(store, settings.bodyLimit, { admission, deadlineMs: settings.streamDeadlineMs });
  router.add('/plants', plants.collection);
  router.add('/plants/{id}', plants.item);
  for (const [template, operations] of Object.entries(opsRoutes(store, metrics, settings.bodyLimit, draining))) router.add(template, operations);

  function fail(ctx: RequestContext, error: unknown): void {
    const apiError = toApiError(error);
    if (apiError.status === 500) logger.error({ reqId: ctx.requestId, err: error }, 'request failed');
    // A 503 is an answer chosen on purpose: its reason is enough, logged as FailureLog says.
    else if (apiError.status > 500) failures.warn(ctx.requestId, error instanceof Error ? error.message : String(error));
    if (ctx.res.headersSent) {
      ctx.res.destroy(); // already answered: a second response cannot follow
      return;
    }
    sendError(ctx, apiError);
  }

  /** Runs the checks and the route; a promise only when something on the way had to wait. */
  function dispatch(ctx: RequestContext, match: Match | undefined): MaybePromise<void> {
    // First, so that every refusal below carries them too.
    if (corsOrigins.size > 0) applyCors(corsOrigins, ctx.req, ctx.res, match?.route.allowHeader ?? '');
    const lines = singleHeaderLines(ctx.req.rawHeaders);
    if (lines.host > 1 || (lines.host === 0 && ctx.req.httpVersion === '1.1')) throw errors.badHost();
    if (lines.authorization > 1) throw errors.repeatedHeader('Authorization');
    if (lines.contentType > 1) throw errors.repeatedHeader('Content-Type');
    // Any other expectation reaches the app too (server.ts: checkExpectation), to be refused here.
    const { expect } = ctx.req.headers;
    if (expect !== undefined && expect.toLowerCase() !== '100-continue') throw errors.expectationFailed();
    if (match === undefined) throw errors.routeNotFound();
    const { route } = match;
    const method = ctx.req.method ?? 'GET';
    if (method === 'OPTIONS') {
      startResponse(ctx, 204).setHeader('allow', route.allowHeader).end();
      return;
    }
    const operation = route.operations[method];
    if (operation === undefined) throw errors.methodNotAllowed(route.allow);
    if (operation.scope === undefined) return operation.handle(ctx);
    const { handle } = operation;
    const admitted = (principal: Principal) => {
      if (rateLimiter === undefined) return handle(ctx, principal);
      return rateLimiter.consume(principal.owner).then((decision) => {
        ctx.res.setHeader('ratelimit-policy', rateLimiter.policyHeader);
        ctx.res.setHeader('ratelimit', rateLimitHeader(decision));
        if (!decision.allowed) throw errors.rateLimited(decision.resetSeconds);
        return handle(ctx, principal);
      });
    };
    return andThen(authenticator.authorize(ctx.req.headers.authorization, operation.scope), (principal) => {
      const { pending } = principal;
      if (pending === undefined) return admitted(principal);
      if (operation.readsBody === true) return andThen(pending.confirm(), () => admitted({ owner: principal.owner, scopes: principal.scopes }));
      return checkingToken(pending, () => admitted(principal));
    });
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const requestId = accessLog.idOf(req);
    const url = originForm(req.url ?? '/');
    const q = url.indexOf('?');
    const match = router.match(q === -1 ? url : url.slice(0, q));
    const ctx: RequestContext = { req, res, requestId, query: q === -1 ? '' : url.slice(q + 1), param: match?.param ?? '', responses };
    res.on('close', () => {
      const seconds = (performance.now() - started) / 1000;
      const route = match?.route.template ?? 'unmatched';
      // A response the server cut (a stream past its deadline, a reader that stalled, a database
      // failing mid-stream, the drain's limit once its status was sent) keeps its status and
      // says why; else 499, as nginx logs it: the client left before the response was complete.
      const cutByDrain = drainCut.aborted && res.headersSent;
      const cut = res.writableFinished ? undefined : (res.errored?.message ?? (cutByDrain ? String(drainCut.reason) : undefined));
      const status = res.writableFinished || cut !== undefined ? res.statusCode : CLIENT_CLOSED_REQUEST;
      // The parser's Error, sent in this response's place, carries an id of its own.
      const id = res.writableFinished ? requestId : ((res.getHeader('x-request-id') as string | undefined) ?? requestId);
      accessLog.record(id, req.method ?? '', route, status, seconds, cut);
    });
    pipelines.run(req, res, () => {
      try {
        const done = dispatch(ctx, match);
        if (done instanceof Promise) done.catch((error: unknown) => fail(ctx, error));
      } catch (error) {
        fail(ctx, error);
      }
    });
  };
}
