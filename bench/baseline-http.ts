/**
 * The HTTP pieces both baselines share (in memory and node+pg): bearer token, request body,
 * list parameters and the response shapes plantstore uses, written with bare node:http.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function send(res: ServerResponse, status: number, body?: string, location?: string): void {
  res.statusCode = status;
  if (location !== undefined) res.setHeader('location', location);
  if (body === undefined) {
    res.end();
    return;
  }
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

export function fail(res: ServerResponse, status: number, message: string): void {
  send(res, status, JSON.stringify({ error: status, message }));
}

/** A page of plants, with the Link to the next one when `limit` cut it short. */
export function sendPage(res: ServerResponse, body: string, limit: number | undefined, lastId: number | string | undefined): void {
  if (limit !== undefined && lastId !== undefined) res.setHeader('link', `</plants?limit=${limit}&after=${lastId}>; rel="next"`);
  send(res, 200, body);
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return header?.startsWith('Bearer ') === true ? header.slice(7) : undefined;
}

/** `after` and `limit` of a list query; NaN for a value that is not an integer. */
export function listQuery(query: string): { after: number | undefined; limit: number | undefined } {
  const params = new URLSearchParams(query);
  const number = (name: string) => {
    const raw = params.get(name);
    if (raw === null) return undefined;
    const value = Number(raw);
    return raw !== '' && Number.isSafeInteger(value) ? value : NaN;
  };
  return { after: number('after'), limit: number('limit') };
}

export interface NewPlant {
  id: number;
  name: string;
  tag: string | null;
}

/** The body of a create, or undefined once a 400 has been sent. */
export function readJson(req: IncomingMessage, res: ServerResponse): Promise<NewPlant | undefined> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      let body: { id?: unknown; name?: unknown; tag?: unknown };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        fail(res, 400, 'The request body is not valid JSON.');
        return resolve(undefined);
      }
      const { id, name, tag } = body;
      if (!Number.isSafeInteger(id) || typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) {
        fail(res, 400, 'The plant is not valid.');
        return resolve(undefined);
      }
      resolve({ id: id as number, name, tag: tag ?? null });
    });
  });
}
