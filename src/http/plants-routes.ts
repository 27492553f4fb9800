/** POST /plants, GET /plants, GET and DELETE /plants/{id}: HTTP in, domain rules, store out. */
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { READ, WRITE, type Principal } from '../auth/principal.js';
import { errors } from '../errors.js';
import { couldBeTag, plantJson, plantsJson, toNewPlant } from '../plants/plant.js';
import type { PlantPage, PlantStore, TokenCheck } from '../store/store.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { readJsonBody } from './body.js';
import type { RequestContext } from './context.js';
import { byPlantRules, checkNoParameters, nextLink, parseItemFields, parseListParams, parsePlantId, type ListParams } from './plant-query.js';
import { JSON_TYPE, sendEmpty, sendJson, startResponse } from './respond.js';
import type { Operation } from './router.js';
import type { StreamAdmission } from './stream-admission.js';

/** Pages up to this size are read at once; larger lists, and lists without `limit`, stream from a snapshot. */
const BUFFERED_PAGE_MAX = 1000;
const STREAM_CHUNK = 250;

/**
 * A client that reads nothing of a streamed list for this long is cut off: it would otherwise
 * hold a database snapshot (and on PostgreSQL a pooled connection) for as long as it likes.
 */
export const STALLED_READER_MS = 30_000;

function sendPage(ctx: RequestContext, page: PlantPage, params: ListParams, limit: number): void {
  const headers = page.nextAfter === undefined ? undefined : { link: nextLink(params, limit, page.nextAfter) };
  sendJson(ctx, 200, `[${page.members}]`, headers);
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

export interface StreamPolicy {
  admission: StreamAdmission;
  /** A stream still running after this is cut, however fast its client reads. */
  deadlineMs: number;
}

export function plantRoutes(store: PlantStore, bodyLimit: number, streams: StreamPolicy) {
  async function createPlant(ctx: RequestContext, { owner }: Principal): Promise<void> {
    checkNoParameters(ctx.query);
    const body = await readJsonBody(ctx.req, ctx.res, bodyLimit);
    const plant = byPlantRules(() => toNewPlant(body));
    const { outcome, stored } = await store.createPlant(owner, plant);
    if (outcome === 'conflict') throw errors.plantConflict();
    sendJson(ctx, 200, plantJson(stored), { location: `/plants/${stored.id}` });
  }

  function listPlants(ctx: RequestContext, { owner, pending }: Principal): MaybePromise<void> {
    const params = parseListParams(ctx.query);
    const { limit } = params;
    // A tag no plant can have (over 64 characters, a control character) matches none, and never
    // reaches a store (PostgreSQL text cannot hold NUL).
    if (limit === 0 || (params.tag !== undefined && !couldBeTag(params.tag))) return andThen(pending?.confirm(), () => sendJson(ctx, 200, '[]'));
    if (limit === undefined || limit > BUFFERED_PAGE_MAX) return streamPlants(ctx, owner, params, pending);
    return andThen(store.listPlants(owner, { ...params, limit }, pending), (page) => sendPage(ctx, page, params, limit));
  }

  /**
   * Writes the list chunk by chunk, waiting for the client to drain, so memory stays flat; and
   * gives other requests a turn between chunks, so a fast reader cannot hold the event loop.
   */
  async function streamPlants(ctx: RequestContext, owner: string, params: ListParams, pending: TokenCheck | undefined): Promise<void> {
    const { res } = ctx;
    const release = streams.admission.admit(owner);
    let stream;
    try {
      stream = await store.streamPlants(owner, params, pending);
    } catch (error) {
      release();
      throw error;
    }
    const deadline = setTimeout(() => res.destroy(new Error('STREAM_DEADLINE passed')), streams.deadlineMs);
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
      clearTimeout(deadline);
      try {
        await stream.close();
      } finally {
        release();
      }
    }
  }

  function getPlant(ctx: RequestContext, { owner, pending }: Principal): MaybePromise<void> {
    const id = parsePlantId(ctx.param);
    const fields = parseItemFields(ctx.query);
    return andThen(store.getPlant(owner, id, pending), (plant) => {
      if (plant === undefined) throw errors.plantNotFound();
      sendJson(ctx, 200, plantJson(plant, fields));
    });
  }

  function deletePlant(ctx: RequestContext, { owner, pending }: Principal): MaybePromise<void> {
    const id = parsePlantId(ctx.param);
    checkNoParameters(ctx.query);
    return andThen(store.deletePlant(owner, id, pending), (deleted) => {
      if (!deleted) throw errors.plantNotFound();
      sendEmpty(ctx, 204);
    });
  }

  return {
    collection: {
      GET: { scope: READ, handle: listPlants },
      POST: { scope: WRITE, handle: createPlant, readsBody: true },
    } satisfies Record<string, Operation>,
    item: {
      GET: { scope: READ, handle: getPlant },
      DELETE: { scope: WRITE, handle: deletePlant },
    } satisfies Record<string, Operation>,
  };
}
