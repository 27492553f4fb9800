/** One access line and one count per request, so the log and the request metrics always agree. */
import type { Logger } from '../logger.js';
import type { Metrics } from './metrics.js';

/** Records a request once its response is complete or cut; `cut` says why the server cut it. */
export type RecordRequest = (reqId: string, method: string, route: string, status: number, seconds: number, cut?: string) => void;

export function requestRecorder(logger: Logger, metrics: Metrics): RecordRequest {
  return (reqId, method, route, status, seconds, cut) => {
    metrics.observeRequest(route, method, status, seconds);
    // pino leaves `cut` out of the line when it is undefined.
    logger.info({ reqId, method, route, status, ms: Math.round(seconds * 1e4) / 10, cut }, 'request');
  };
}
