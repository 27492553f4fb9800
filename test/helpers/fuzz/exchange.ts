/** Sends one generated request with node:http (no keep-alive) and collects the whole answer. */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { bodyBytes, type FuzzRequest } from './requests.js';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A credential that names nobody, in the shapes a client might send. */
const MALFORMED_TOKENS = ['', 'pst_short', `pst_${'A'.repeat(43)}`, 'a.b.c', 'tok en', 'pst_\u00e9\u00e9', '==='];

export function send(baseUrl: string, request: FuzzRequest, token: string | undefined, seed: number): Promise<Answer> {
  // Given as a list, headers are sent exactly as listed: node adds no Host of its own.
  const headers: [string, string][] = [['host', new URL(baseUrl).host]];
  if (request.credential === 'malformed') headers.push(['authorization', `${request.scheme} ${MALFORMED_TOKENS[seed % MALFORMED_TOKENS.length]}`]);
  else if (token !== undefined) headers.push(['authorization', `${request.scheme} ${token}`]);
  if (request.contentType !== undefined) headers.push(['content-type', request.contentType]);
  if (request.contentEncoding !== undefined) headers.push(['content-encoding', request.contentEncoding]);
  headers.push(...request.headers);
  const body = request.body === undefined ? undefined : bodyBytes(request.body);
  if (body !== undefined) headers.push(['content-length', String(body.length)]);
  const target = request.path + (request.query === undefined ? '' : `?${request.query}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(baseUrl + target, { method: request.method, headers: headers.flat(), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
