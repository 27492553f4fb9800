/** POST /plants, GET /plants, GET and DELETE /plants/{id}: HTTP in, domain rules, store out. */
import { READ, WRITE, type Principal } from '../auth/principal.js';
import { errors } from '../errors.js';
import { couldBeTag, plantJson, toNewPlant } from '../plants/plant.js';
import type { PlantPage, PlantStore } from '../store/store.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { readJsonBody } from './body.js';
import type { RequestContext } from './context.js';
import { listStreamer, type StreamPolicy } from './list-stream.js';
import { byPlantRules, checkNoParameters, nextLink, parseItemFields, parseListParams, parsePlantId, type ListParams } from './plant-query.js';
import { sendEmpty, sendJson } from './respond.js';
import type { Operation } from './router.js';

/** Pages up to this size are read at once; larger lists, and lists without `limit`, stream from a snapshot (list-stream.ts). */
const BUFFERED_PAGE_MAX = 1000;

function sendPage(ctx: RequestContext, page: PlantPage, params: ListParams, limit: number): void {
  const headers = page.nextAfter === undefined ? undefined : { link: nextLink(params, limit, page.nextAfter) };
  sendJson(ctx, 200, `[${page.members}]`, headers);
}

export function plantRoutes(store: PlantStore, bodyLimit: number, streams: StreamPolicy) {
  const streamPlants = listStreamer(store, streams);

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
