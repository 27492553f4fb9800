/**
 * Pipelined requests on one connection are handled one after another, each once the response
 * before it is complete. node:http hands them over as soon as they are parsed, and RFC 9112
 * §9.3.2 lets a server run only safe ones side by side: a read pipelined after a write must see
 * the write, as it would had the client waited for the write's response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { EndOfTurn } from '../util/end-of-turn.js';

export class PipelineOrder {
  /** The latest response on each connection. */
  private readonly latest = new WeakMap<Socket, ServerResponse>();
  /** The response each waiting one waits for, kept only while it waits. */
  private readonly waitsFor = new WeakMap<ServerResponse, ServerResponse>();
  /** Requests whose turn came, to be started at the end of the event loop's turn. */
  private ready: (() => void)[] = [];
  private readonly scheduleStart: () => void;

  /**
   * A request whose turn comes when the response before it completes, often while the end of
   * the turn sends responses, starts at the next end of a turn, before its other steps: its
   * reads and writes then share that end, rather than leaving a read transaction open into the
   * next turn's reads, which would be older than their requests.
   */
  constructor(endOfTurn: EndOfTurn) {
    endOfTurn.set('startWaitingRequests', () => this.startReady());
    this.scheduleStart = endOfTurn.scheduleStart;
  }

  /**
   * The newest response on a connection that is still to be sent: its request is complete or its
   * head is out. One cut short (an incomplete request with nothing sent) never will be, and the
   * ones before it are looked at instead.
   */
  pendingOn(socket: Duplex): ServerResponse | undefined {
    for (let res = this.latest.get(socket as Socket); res !== undefined; res = this.waitsFor.get(res)) {
      if (res.writableFinished || res.destroyed) return undefined; // and so is every one before it
      if (res.req.complete || res.headersSent) return res;
    }
    return undefined;
  }

  /** The newest response on a connection whose request is still arriving, with nothing sent yet. */
  cutShortOn(socket: Duplex): ServerResponse | undefined {
    const res = this.latest.get(socket as Socket);
    if (res === undefined || res.req.complete || res.headersSent || res.writableFinished || res.destroyed) return undefined;
    return res;
  }

  /**
   * Runs `handle` now, or once the response to the connection's previous request is complete;
   * never when the connection can no longer carry its response.
   */
  run(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
    const previous = this.latest.get(req.socket);
    this.latest.set(req.socket, res);
    // Done with only once node has also let go of its socket: until then it may still close the
    // connection after it (Connection: close), and the request must wait for that to show.
    if (previous === undefined || previous.destroyed || (previous.writableFinished && previous.socket === null)) {
      start(req, res, handle);
      return;
    }
    this.waitsFor.set(res, previous);
    previous.once('close', () => {
      this.waitsFor.delete(res);
      this.ready.push(() => start(req, res, handle));
      this.scheduleStart();
    });
  }

  private startReady(): void {
    const ready = this.ready;
    this.ready = [];
    for (const handle of ready) handle();
  }
}

/** Runs `handle`, unless the connection can no longer carry the response. */
function start(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
  if (req.socket.destroyed || !req.socket.writable) {
    // A response before it closed the connection (Connection: close, RFC 9112 §9.6), or the
    // client left: a write run now could not be answered, and a stream would wait for ever.
    // node emits no 'close' for a response it never gave the socket: the access line and the
    // requests queued behind this one wait for it.
    res.destroy();
    res.emit('close');
    return;
  }
  handle();
}
