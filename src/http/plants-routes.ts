/** POST /plants, GET /plants and DELETE /plants/{id}: HTTP in, domain rules, store out. */
import type { ServerResponse } from 'node:http';
import { READ, WRITE } from '../auth/principal.js';
import { errors } from '../errors.js';
import { parseInt64, parseNonNegativeInt32 } from '../plants/int64.js';
import { PlantValidationError, plantJson, toNewPlant, type StoredPlant } from '../plants/plant.js';
import type { PlantPage, PlantStore } from '../store/store.js';
import { readJsonBody } from './body.js';
import type { RequestContext } from './context.js';
import { JSON_TYPE, sendEmpty, sendJson, startAnswer } from './respond.js';
import type { Operation } from './router.js';

/** Pages up to this size are read in one query; larger answers stream from a snapshot. */
const BUFFERED_PAGE_MAX = 1000;
const STREAM_CHUNK = 1000;

interface ListParams {
  limit: number | undefined;
  after: bigint | undefined;
}

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw errors.badRequest(`"${name}" may be given only once.`);
  return values[0];
}

function parseListParams(query: string): ListParams {
  if (query === '') return { limit: undefined, after: undefined };
  // The common `limit=<digits>` alone needs no URLSearchParams; anything else takes the full path.
  if (query.startsWith('limit=')) {
    const limit = parseNonNegativeInt32(query.slice(6));
    if (limit !== undefined) return { limit, after: undefined };
  }
  const params = new URLSearchParams(query);
  const rawLimit = single(params, 'limit');
  const rawAfter = single(params, 'after');
  const limit = rawLimit === undefined ? undefined : parseNonNegativeInt32(rawLimit);
  if (rawLimit !== undefined && limit === undefined) {
    throw errors.badRequest('"limit" must be a whole number from 0 to 2147483647 written in decimal digits.');
  }
  const after = rawAfter === undefined ? undefined : parseInt64(rawAfter);
  if (rawAfter !== undefined && after === undefined) {
    throw errors.badRequest('"after" must be a signed 64-bit integer written in decimal digits.');
  }
  return { limit, after };
}

function nextLink(limit: number, lastId: bigint): string {
  return `</plants?limit=${limit}&after=${lastId}>; rel="next"`;
}

function sendPage(ctx: RequestContext, page: PlantPage, limit: number): void {
  const last = page.plants.at(-1);
  const headers = page.hasMore && last !== undefined ? { link: nextLink(limit, last.id) } : undefined;
  sendJson(ctx, 200, pageBody(page), headers);
}

/** Stores may hand out the same page object again (the SQLite page cache): its JSON is built once. */
const pageBodies = new WeakMap<PlantPage, string>();

function pageBody(page: PlantPage): string {
  let body = pageBodies.get(page);
  if (body === undefined) {
    body = pageJson(page.plants);
    pageBodies.set(page, body);
  }
  return body;
}

function pageJson(plants: readonly StoredPlant[]): string {
  let body = '[';
  for (let i = 0; i < plants.length; i++) body += (i === 0 ? '' : ',') + plantJson(plants[i] as StoredPlant);
  return body + ']';
}

/**
 * A client that reads nothing of a streamed list for this long is cut off: it would otherwise
 * hold a database snapshot (and on PostgreSQL a pooled connection) for as long as it likes.
 */
export const STALLED_READER_MS = 30_000;

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
    const timer = setTimeout(() => res.destroy(), STALLED_READER_MS);
    res.on('drain', done);
    res.on('close', done);
  });
}

export function plantRoutes(store: PlantStore, bodyLimit: number) {
  async function createPlant(ctx: RequestContext): Promise<void> {
    const body = await readJsonBody(ctx.req, bodyLimit);
    let plant: StoredPlant;
    try {
      plant = toNewPlant(body);
    } catch (error) {
      if (error instanceof PlantValidationError) throw errors.badRequest(error.message);
      throw error;
    }
    const { outcome, stored } = await store.createPlant(ctx.principal.owner, plant);
    if (outcome === 'conflict') throw errors.plantConflict();
    sendJson(ctx, 200, plantJson(stored), { location: `/plants/${stored.id}` });
  }

  /** A page the store holds in memory is answered before this returns; anything else returns a promise. */
  function listPlants(ctx: RequestContext): Promise<void> | undefined {
    const { limit, after } = parseListParams(ctx.query);
    if (limit === 0) {
      sendJson(ctx, 200, '[]');
      return undefined;
    }
    if (limit === undefined || limit > BUFFERED_PAGE_MAX) return streamPlants(ctx, { limit, after });
    const { owner } = ctx.principal;
    const cached = store.cachedPage?.(owner, after, limit);
    if (cached !== undefined) {
      sendPage(ctx, cached, limit);
      return undefined;
    }
    return store.listPlants(owner, after, limit).then((page) => sendPage(ctx, page, limit));
  }

  /** Writes the list chunk by chunk, waiting for the client to drain, so memory stays flat. */
  async function streamPlants(ctx: RequestContext, params: ListParams): Promise<void> {
    const { res } = ctx;
    const stream = await store.streamPlants(ctx.principal.owner, params);
    try {
      startAnswer(ctx, 200);
      res.setHeader('content-type', JSON_TYPE);
      if (stream.lastIdBeforeMore !== undefined && params.limit !== undefined) {
        res.setHeader('link', nextLink(params.limit, stream.lastIdBeforeMore));
      }
      if (ctx.req.method === 'HEAD') {
        res.end(); // the headers are the whole answer: no need to read the plants
        return;
      }
      let first = true;
      res.write('[');
      for (;;) {
        const chunk = await stream.next(STREAM_CHUNK);
        if (chunk.length === 0 || res.destroyed) break;
        const text = pageJson(chunk).slice(1, -1);
        if (!res.write(first ? text : ',' + text)) await writable(res);
        first = false;
      }
      if (!res.destroyed) res.end(']');
    } catch (error) {
      // The status line is gone: cut the connection so the client sees an incomplete answer.
      res.destroy(error as Error);
      throw error;
    } finally {
      await stream.close();
    }
  }

  async function deletePlant(ctx: RequestContext): Promise<void> {
    let raw: string;
    try {
      raw = decodeURIComponent(ctx.param);
    } catch {
      raw = '';
    }
    const id = parseInt64(raw);
    if (id === undefined) throw errors.badRequest('The plant id in the path must be a signed 64-bit integer in decimal digits.');
    if (!(await store.deletePlant(ctx.principal.owner, id))) throw errors.plantNotFound();
    sendEmpty(ctx, 204);
  }

  return {
    collection: {
      GET: { scope: READ, handle: listPlants },
      POST: { scope: WRITE, handle: createPlant },
    } satisfies Record<string, Operation>,
    item: {
      DELETE: { scope: WRITE, handle: deletePlant },
    } satisfies Record<string, Operation>,
  };
}
