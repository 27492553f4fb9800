/**
 * A list too long to read at once (no `limit`, or one over 1000), written from a database
 * snapshot chunk by chunk as its client reads: memory stays flat, and other requests get a turn
 * between chunks. Admission, a deadline and a stalled-reader cut keep streams from holding
 * snapshots (and PostgreSQL connections) for ever.
 */
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { plantsJson } from '../plants/plant.js';
import type { PlantStore, TokenCheck } from '../store/store.js';
import type { RequestContext } from './context.js';
import { nextLink, type ListParams } from './plant-query.js';
import { JSON_TYPE, startResponse } from './respond.js';
import type { StreamAdmission } from './stream-admission.js';

const STREAM_CHUNK = 250;

/**
 * A client that reads nothing of a streamed list for this long is cut off: it would otherwise
 * hold a database snapshot (and on PostgreSQL a pooled connection) for as long as it likes.
 */
export const STALLED_READER_MS = 30_000;

export interface StreamPolicy {
  admission: StreamAdmission;
  /** A stream still running after this is cut, however fast its client reads. */
  deadlineMs: number;
}

/**
 * Resolves when `res` can take more data or has closed, and leaves no listener behind; destroys
 * it when the client has not read for STALLED_READER_MS.
 */
function writable(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(() => res.destroy(new Error(`the client read nothing for ${STALLED_READER_MS / 1000} s`)), STALLED_READER_MS);
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Sends an owner's list as a stream: 429 or 503 past the admission limits. */
export function listStreamer(store: PlantStore, policy: StreamPolicy) {
  return async function streamPlants(ctx: RequestContext, owner: string, params: ListParams, pending: TokenCheck | undefined): Promise<void> {
    const { res } = ctx;
    const admitted = policy.admission.admit(owner);
    let stream;
    try {
      stream = await store.streamPlants(owner, params, pending);
    } catch (error) {
      admitted.release();
      throw error;
    }
    const deadline = setTimeout(() => res.destroy(new Error('STREAM_DEADLINE passed')), policy.deadlineMs);
    try {
      startResponse(ctx, 200);
      res.setHeader('content-type', JSON_TYPE);
      if (stream.nextAfter !== undefined && params.limit !== undefined) {
        res.setHeader('link', nextLink(params, params.limit, stream.nextAfter));
      }
      if (ctx.req.method === 'HEAD') {
        res.end(); // the headers are the whole response: no need to read the plants
        return;
      }
      let first = true;
      res.write('[');
      for (;;) {
        const chunk = await stream.next(STREAM_CHUNK);
        if (chunk.length === 0 || res.destroyed) break;
        const text = plantsJson(chunk, params.fields);
        if (!res.write(first ? text : ',' + text)) await writable(res);
        else await nextTurn();
        first = false;
      }
      if (!res.destroyed) res.end(']');
    } catch (error) {
      // The status line is gone: cut the connection so the client sees an incomplete response.
      res.destroy(error as Error);
      throw error;
    } finally {
      // The response is complete or cut: the owner may stream again while the snapshot closes.
      admitted.releaseOwner();
      clearTimeout(deadline);
      try {
        await stream.close();
      } finally {
        admitted.release();
      }
    }
  };
}
