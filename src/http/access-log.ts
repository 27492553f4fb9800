/**
 * The access log: each request's id, and one access line and one count per request, so the log
 * and the request metrics always agree. The app and the answers to what node's parser refuses
 * share one.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../logger.js';
import { clientRequestId } from './context.js';
import type { Metrics } from './metrics.js';

/** Records a request once its response is complete or cut; `cut` says why the server cut it. */
export type RecordRequest = (reqId: string, method: string, route: string, status: number, seconds: number, cut?: string) => void;

export interface AccessLog {
  /** The client's own X-Request-Id when it sent one the server keeps, else a fresh id. */
  idOf(req: IncomingMessage | undefined): string;
  record: RecordRequest;
}

export function accessLog(logger: Logger, metrics: Metrics): AccessLog {
  // Fresh ids: a random prefix per process (unique across instances) and a counter, cheaper than a UUID each.
  const prefix = randomBytes(6).toString('base64url');
  let count = 0;
  return {
    idOf: (req) => (req === undefined ? undefined : clientRequestId(req)) ?? `${prefix}-${(++count).toString(36)}`,
    record: (reqId, method, route, status, seconds, cut) => {
      metrics.observeRequest(route, method, status, seconds);
      // pino leaves `cut` out of the line when it is undefined.
      logger.info({ reqId, method, route, status, ms: Math.round(seconds * 1e4) / 10, cut }, 'request');
    },
  };
}
