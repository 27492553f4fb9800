/**
 * The route table and its matching: which path template a request hits (404 when none)
 * and which methods that template allows (405 with Allow otherwise).
 */
import type { Scope } from '../auth/principal.js';
import type { AuthorizedHandler, Handler } from './context.js';

/**
 * A public operation, or one that needs a bearer token with `scope`. One that `readsBody` has its
 * token confirmed before it runs: an unauthenticated request never has its body read.
 */
export type Operation = { scope: undefined; handle: Handler } | { scope: Scope; handle: AuthorizedHandler; readsBody?: boolean };

/** A GET (and so HEAD) that needs no token. */
export function publicGet(handle: Handler): Record<string, Operation> {
  return { GET: { scope: undefined, handle } };
}

export interface Route {
  /** The template, also the metrics label: `/plants/{id}`. */
  template: string;
  operations: Partial<Record<string, Operation>>;
  allow: string[];
  /** `allow` as the value of an Allow header, joined once. */
  allowHeader: string;
}

export interface Match {
  readonly route: Route;
  readonly param: string;
}

export class Router {
  /** Exact paths have no parameter, so each has one Match, built once. */
  private readonly exact = new Map<string, Match>();
  private readonly prefixed: { prefix: string; route: Route }[] = [];

  /** Adds a route; a template ending in `/{name}` matches one path segment there. */
  add(template: string, operations: Record<string, Operation>): void {
    // HEAD is answered wherever GET is, and listed beside it. OPTIONS is answered on every route
    // but not listed: Allow carries the methods of the resource, as the contract gives them.
    const allow = Object.keys(operations).flatMap((method) => (method === 'GET' && operations.HEAD === undefined ? ['GET', 'HEAD'] : [method]));
    const withHead = operations.GET === undefined ? operations : { HEAD: operations.GET, ...operations };
    const route: Route = { template, operations: withHead, allow, allowHeader: allow.join(', ') };
    const param = /\/\{[a-z]+\}$/.exec(template);
    if (param === null) this.exact.set(template, { route, param: '' });
    else this.prefixed.push({ prefix: template.slice(0, param.index + 1), route });
  }

  match(pathname: string): Match | undefined {
    const exact = this.exact.get(pathname);
    if (exact !== undefined) return exact;
    for (const { prefix, route } of this.prefixed) {
      if (pathname.startsWith(prefix) && pathname.indexOf('/', prefix.length) === -1) {
        return { route, param: pathname.slice(prefix.length) };
      }
    }
    return undefined;
  }
}
