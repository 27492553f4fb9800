/**
 * Pipelined requests on one connection are handled one after another, each once the response
 * before it is complete. node:http hands them over as soon as they are parsed, and RFC 9112
 * §9.3.2 lets a server run only safe ones side by side: a read pipelined after a write must see
 * the write, as it would had the client waited for the write's response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export class PipelineOrder {
  /** The latest response on each connection. */
  private readonly latest = new WeakMap<Socket, ServerResponse>();

  /** The response to the latest request on a connection (finished or not), if it had one. */
  latestOn(socket: Duplex): ServerResponse | undefined {
    return this.latest.get(socket as Socket);
  }

  /** Runs `handle` now, or once the response to the connection's previous request is complete. */
  run(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
    const previous = this.latest.get(req.socket);
    this.latest.set(req.socket, res);
    if (previous === undefined || previous.writableFinished || previous.destroyed) handle();
    else previous.once('close', handle);
  }
}
