/**
 * Reading a JSON request body, in the contract's order: media type and content coding (415),
 * size (413), then UTF-8 and JSON syntax (400). Only called after authentication.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../errors.js';
import { JsonSyntaxError, parseJson, type JsonValue } from '../util/strict-json.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** One `;name=value` parameter of a media type; a quoted value may hold `;` (RFC 9110 §5.6.6). */
const PARAMETER = /;\s*([^=;\s]*)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;]*))?/g;
/** Charsets whose bytes are UTF-8 as sent; a body declared in any other would be misread. */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/** `application/json`, compared case-insensitively, with no charset or one UTF-8 one. */
function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  if (essence !== 'application/json') return false;
  if (semicolon === -1) return true;
  const charsets = [...contentType.slice(semicolon).matchAll(PARAMETER)].filter((parameter) => parameter[1]?.toLowerCase() === 'charset');
  if (charsets.length === 0) return true;
  // Two charsets are a guess at which one counts, as two Content-Type lines would be.
  if (charsets.length > 1) return false;
  const value = (charsets[0]?.[2] ?? '').trim().replace(/^"(.*)"$/s, '$1').replace(/\\(.)/gs, '$1');
  return UTF8_CHARSETS.has(value.toLowerCase());
}

/**
 * Collects the body up to `limit` bytes (listeners, not an async iterator: this is the hot path).
 * A client waiting for `100 Continue` gets it only here, once the request was found worth a body.
 */
function readLimited(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(errors.bodyTooLarge(limit));
  // RFC 9110 §10.1.1: an HTTP/1.0 client's 100-continue is ignored; it would take a 1xx for the response.
  if (req.httpVersion === '1.1' && req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: Error | undefined) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error !== undefined) reject(error);
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) stop(errors.bodyTooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => stop(undefined);
    // A client that hangs up in the middle of its body is not a failure of the server.
    const cutShort = () => errors.badRequest('The request body ended before it was complete.');
    const onClose = () => stop(cutShort());
    const onError = (error: Error) => stop(req.destroyed ? cutShort() : error);
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

export async function readJsonBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<JsonValue> {
  if (!isJsonMediaType(req.headers['content-type'])) throw errors.unsupportedMediaType();
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') throw errors.unsupportedContentEncoding();
  // node takes any list of codings that ends in chunked and undoes only the chunking.
  const transfer = req.headers['transfer-encoding'];
  if (transfer !== undefined && transfer.trim().toLowerCase() !== 'chunked') throw errors.unsupportedTransferEncoding();
  const bytes = await readLimited(req, res, limit);
  if (bytes.length === 0) throw errors.badRequest('The request body is empty; send a JSON object.');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw errors.badRequest('The request body is not valid UTF-8.');
  }
  try {
    return parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw errors.badRequest(`The request body is not valid JSON: ${error.message}.`);
    throw error;
  }
}
