/**
 * What node's HTTP parser rejects before plantstore sees a request (a malformed header, a
 * request line that is not HTTP, headers too large, a request that took too long) still gets an
 * Error body, written straight to the socket, and the connection is closed.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PipelineOrder } from './pipelining.js';

interface ParserError extends Error {
  code?: string;
}

/** The raw bytes of the response to a request the parser rejected, its status as node's own handler picks it. */
function clientErrorResponse(error: ParserError): string {
  if (error.code === 'HPE_HEADER_OVERFLOW') return rawError(431, 'Request Header Fields Too Large', 'The request headers are larger than the server accepts.');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return rawError(408, 'Request Timeout', 'The request was not complete in time.');
  return rawError(400, 'Bad Request', 'The request is not well-formed HTTP/1.1.');
}

/** An Error response as raw bytes, closing the connection. */
function rawError(status: number, reason: string, message: string): string {
  const body = JSON.stringify({ error: status, message });
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${randomBytes(9).toString('base64url')}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Connections given an Error to end with. node no longer counts them as its HTTP connections
 * (closeAllConnections does not cut them), so the drain's cut calls cut() as well.
 */
class WaitingConnections {
  private readonly sockets = new Set<Duplex>();

  /**
   * Ends the connection with `response`, after `res`, the newest response still to be sent on
   * it (PipelineOrder.pendingOn): the responses to requests pipelined before the one that
   * failed go first, the Error follows them.
   */
  endAfter(res: ServerResponse | undefined, socket: Duplex, response: string): void {
    // Kept until it closes: a client may leave its side open after the Error, for ever.
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    // node has taken its own error listener off a CONNECT's socket; a reset, or the reason a
    // stream before the Error was cut for, would otherwise be an uncaught exception.
    socket.on('error', () => socket.destroy());
    if (res === undefined) {
      socket.end(response);
      return;
    }
    res.once('finish', () => socket.end(response));
    res.once('close', () => {
      if (!res.writableFinished) socket.destroy();
    });
  }

  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}

/** CONNECT, which node takes away from the app: plantstore is no proxy. */
function refuseConnect(server: Server, requests: PipelineOrder, waiting: WaitingConnections): void {
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    // node has taken the socket from the server, and with it the passing on of the socket's
    // 'drain' to the response under way: a streamed list would wait for it for ever.
    const pending = requests.pendingOn(socket);
    if (pending !== undefined) socket.on('drain', () => pending.emit('drain'));
    waiting.endAfter(pending, socket, rawError(400, 'Bad Request', 'CONNECT is not supported: plantstore is not a proxy.'));
  });
}

/**
 * Answers parser errors with an Error body, after the responses still to be sent on the
 * connection (a complete request still at work, or one answered without reading its body). A
 * request cut short by the error, and not yet answered, can never be: the Error is its answer.
 * Returns what cuts the connections still waiting to send such an Error.
 */
export function respondToClientErrors(server: Server, requests: PipelineOrder): () => void {
  const waiting = new WaitingConnections();
  refuseConnect(server, requests, waiting);
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    waiting.endAfter(requests.pendingOn(socket), socket, clientErrorResponse(error));
  });
  return () => waiting.cut();
}
