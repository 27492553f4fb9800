/**
 * What node's HTTP parser rejects (a malformed header or body, a request line that is not HTTP,
 * headers too large, a request that took too long) still gets an Error body, written straight to
 * the socket, and the connection is closed. Each has its access line: that of the request the
 * app was reading when the parser gave up, or one of its own.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AccessLog } from './access-log.js';
import type { PipelineOrder } from './pipelining.js';

interface ParserError extends Error {
  code?: string;
}

interface Refusal {
  status: number;
  reason: string;
  message: string;
}

/** The response to a request the parser rejected, its status as node's own handler picks it. */
function parserRefusal(error: ParserError): Refusal {
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, reason: 'Request Header Fields Too Large', message: 'The request headers are larger than the server accepts.' };
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: 'The request was not complete in time.' };
  return { status: 400, reason: 'Bad Request', message: 'The request is not well-formed HTTP/1.1.' };
}

/** The route of an access line for what never became a request the app saw. */
const UNPARSED = 'unparsed';

/** An Error response as raw bytes, closing the connection. */
function rawError({ status, reason, message }: Refusal, requestId: string): string {
  const body = JSON.stringify({ error: status, message });
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
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
  endAfter(res: ServerResponse | undefined, socket: Duplex, response: string, sent?: () => void): void {
    // Kept until it closes: a client may leave its side open after the Error, for ever.
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    // node has taken its own error listener off a CONNECT's socket; a reset, or the reason a
    // stream before the Error was cut for, would otherwise be an uncaught exception.
    socket.on('error', () => socket.destroy());
    if (res === undefined) {
      socket.end(response, sent);
      return;
    }
    res.once('finish', () => socket.end(response, sent));
    res.once('close', () => {
      if (!res.writableFinished) socket.destroy();
    });
  }

  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}

const CONNECT_REFUSAL: Refusal = { status: 400, reason: 'Bad Request', message: 'CONNECT is not supported: plantstore is not a proxy.' };

/** CONNECT, which node takes away from the app: plantstore is no proxy. */
function refuseConnect(server: Server, requests: PipelineOrder, waiting: WaitingConnections, log: AccessLog): void {
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    // node has taken the socket from the server, and with it the passing on of the socket's
    // 'drain' to the response under way: a streamed list would wait for it for ever.
    const pending = requests.pendingOn(socket);
    if (pending !== undefined) socket.on('drain', () => pending.emit('drain'));
    const requestId = log.idOf(req);
    log.record(requestId, 'CONNECT', UNPARSED, CONNECT_REFUSAL.status, 0);
    waiting.endAfter(pending, socket, rawError(CONNECT_REFUSAL, requestId));
  });
}

/**
 * Answers parser errors with an Error body, after the responses still to be sent on the
 * connection (a complete request still at work, or one answered without reading its body). A
 * request cut short by the error, and not yet answered, can never be: the Error is its answer.
 * Returns what cuts the connections still waiting to send such an Error.
 */
export function respondToClientErrors(server: Server, requests: PipelineOrder, log: AccessLog): () => void {
  const waiting = new WaitingConnections();
  refuseConnect(server, requests, waiting, log);
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = parserRefusal(error);
    // A client that ended its side in the middle of a request has left: no refusal of ours to
    // record, and the request it cut short, if the app has it, is logged as one whose client left.
    const left = error.code === 'HPE_INVALID_EOF_STATE';
    const unanswered = left ? undefined : requests.cutShortOn(socket);
    if (unanswered === undefined) {
      const requestId = log.idOf(undefined);
      if (!left) log.record(requestId, '', UNPARSED, refusal.status, 0);
      waiting.endAfter(requests.pendingOn(socket), socket, rawError(refusal, requestId));
      return;
    }
    // The Error answers the request the app was reading: its access line (written when the
    // response closes) takes this status and says why, instead of taking it for a client that left.
    unanswered.statusCode = refusal.status;
    const requestId = log.idOf(unanswered.req);
    unanswered.setHeader('x-request-id', requestId);
    waiting.endAfter(requests.pendingOn(socket), socket, rawError(refusal, requestId), () => unanswered.destroy(new Error(refusal.message)));
  });
  return () => waiting.cut();
}
