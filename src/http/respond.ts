/** Writing responses: JSON bodies, and the one place that turns a failure into an Error body. */
import type { ServerResponse } from 'node:http';
import { ApiError, StoreUnavailableError, errors } from '../errors.js';

export const JSON_TYPE = 'application/json';

export function sendJson(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  res.statusCode = status;
  res.setHeader('content-type', JSON_TYPE);
  res.setHeader('content-length', Buffer.byteLength(body));
  if (headers !== undefined) for (const name in headers) res.setHeader(name, headers[name] as string);
  res.end(body);
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

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, JSON.stringify({ error: error.status, message: error.message }), error.headers as Record<string, string>);
}
