/** Routes that need no token: health, readiness, metrics, the OpenAPI document and its docs page. */
import type { Store } from '../store/store.js';
import { ApiError, errors } from '../errors.js';
import { docsRoutes } from './docs.js';
import type { Metrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { sendJson, startResponse } from './respond.js';
import { publicGet, type Operation } from './router.js';

const READINESS_TIMEOUT_MS = 2000;

export function opsRoutes(store: Store, metrics: Metrics, bodyLimit: number, draining: AbortSignal): Record<string, Record<string, Operation>> {
  const openapi = JSON.stringify(openApiDocument({ bodyLimit }));
  return {
    '/healthz': publicGet((ctx) => sendJson(ctx, 200, '{"status":"ok"}')),
    '/readyz': publicGet(async (ctx) => {
      // A load balancer should send no new requests to a server that is about to stop.
      if (draining.aborted) throw errors.unavailable('The server is shutting down.');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(errors.unavailable('The database did not answer in time.')), READINESS_TIMEOUT_MS);
      });
      try {
        await Promise.race([store.ping(), timeout]);
      } catch (error) {
        // Whatever the failure (down, locked, closed), the answer to "ready?" is no.
        throw error instanceof ApiError ? error : errors.unavailable('The database does not answer.');
      } finally {
        clearTimeout(timer);
      }
      sendJson(ctx, 200, '{"status":"ready"}');
    }),
    '/metrics': publicGet(async (ctx) => {
      let body: string;
      try {
        body = await metrics.scrape();
      } catch {
        throw errors.unavailable('The figures of the other workers did not arrive in time.');
      }
      startResponse(ctx, 200).setHeader('content-type', metrics.registry.contentType).end(body);
    }),
    '/openapi.json': publicGet((ctx) => sendJson(ctx, 200, openapi)),
    ...docsRoutes(),
  };
}
