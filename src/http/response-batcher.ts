/**
 * Response batching: the JSON and empty responses formed in one turn of the event loop are
 * written back to back at its end rather than one by one as each is ready, which costs the
 * kernel less per response (docs/performance.md, "Response batching"). The head of each is
 * formed at once; only the bytes wait. RESPONSE_BATCHING=false turns it off.
 */
import type { ServerResponse } from 'node:http';
import type { EndOfTurn } from '../util/end-of-turn.js';

interface HeldResponse {
  res: ServerResponse;
  body: string | undefined;
}

export class ResponseBatcher {
  private held: HeldResponse[] = [];
  private readonly scheduleSend: () => void;

  constructor(endOfTurn: EndOfTurn) {
    endOfTurn.set('sendResponses', () => this.send());
    this.scheduleSend = endOfTurn.schedule;
  }

  /** Ends `res` with `body` at the end of this turn. */
  hold(res: ServerResponse, body: string | undefined): void {
    this.held.push({ res, body });
    this.scheduleSend();
  }

  private send(): void {
    const responses = this.held;
    this.held = [];
    for (const { res, body } of responses) {
      // node marks a response destroyed only when its socket's 'close' event runs, after this
      // phase: a client that reset its connection in this turn shows on the socket. A pipelined
      // response has no socket of its own yet; its request's is the connection.
      if (res.destroyed || (res.socket ?? res.req.socket).destroyed) {
        res.destroy(); // nothing is written; the access line says 499
        continue;
      }
      res.end(body);
    }
  }
}
