/**
 * A small `fetch` over node:http(s) with a keep-alive agent, for the command line: the client
 * takes any fetch, and for a long import global fetch's web streams cost the CLI more CPU per
 * request than the server spends creating the plant (docs/client.md has the figures).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { FetchLike } from '../client/index.js';

export interface NodeFetchOptions {
  /** Connections kept per origin: as many as requests in flight. */
  maxSockets: number;
  /** A request whose connection is not made, or stays silent, this long fails with ETIMEDOUT (default 60 s). */
  timeoutMs?: number;
}

/** Statuses whose Response must have no body. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

export function nodeFetch({ maxSockets, timeoutMs = 60_000 }: NodeFetchOptions): FetchLike {
  const agents = { http: new HttpAgent({ keepAlive: true, maxSockets }), https: new HttpsAgent({ keepAlive: true, maxSockets }) };
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const headers = new Headers(init.headers);
      const request = (secure ? httpsRequest : httpRequest)(target, {
        method: init.method ?? 'GET',
        headers: Object.fromEntries(headers),
        agent: secure ? agents.https : agents.http,
        // As an option, unlike request.setTimeout, it bounds the connect too: a host whose
        // firewall drops the packets would otherwise hold the command for the OS's minutes.
        timeout: timeoutMs,
      });
      request.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
      request.on('timeout', () => {
        request.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      });
      request.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const status = response.statusCode ?? 0;
          const body = NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks);
          try {
            resolve(new Response(body, { status, statusText: response.statusMessage ?? '', headers }));
          } catch (error) {
            // A status a Response cannot hold (over 599): whatever answered is no plantstore.
            reject(new TypeError('fetch failed', { cause: error }));
          }
        });
      });
      request.end(typeof init.body === 'string' ? init.body : undefined);
    });
}
