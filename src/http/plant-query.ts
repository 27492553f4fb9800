/**
 * The query parameters of the plant routes: `limit`, `after`, `tag` and `fields` on the list,
 * `fields` on one plant, none on a create or a delete. A parameter given twice, a bad value or
 * an unknown parameter is 400.
 */
import { errors } from '../errors.js';
import { parseInt64, parseNonNegativeInt32 } from '../plants/int64.js';
import { PLANT_FIELDS, PlantValidationError, type PlantFields } from '../plants/plant.js';
import type { ListQuery } from '../store/store.js';

export interface ListParams extends ListQuery {
  fields: PlantFields;
  /** `fields` as given, for the next page's link; undefined when absent. */
  rawFields: string | undefined;
}

const FIELD_NAMES = ['id', 'name', 'tag'] as const;
const LIST_PARAMETERS = new Set(['limit', 'after', 'tag', 'fields']);
const ITEM_PARAMETERS = new Set(['fields']);
const NO_PARAMETERS = new Set<string>();

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * URLSearchParams turns %-escapes that are not UTF-8 into U+FFFD, which is a character a tag
 * may hold: such a query is refused, as a body that is not UTF-8 is.
 */
function checkUtf8Escapes(query: string): void {
  if (!/%[89a-f]/i.test(query)) return;
  const bytes = Buffer.from(query.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
  try {
    STRICT_UTF8.decode(bytes);
  } catch {
    throw errors.badRequest('The query string must be UTF-8 once its %-escapes are decoded.');
  }
}

function parameters(query: string, known: ReadonlySet<string>): Map<string, string> {
  checkUtf8Escapes(query);
  const values = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(query)) {
    if (!known.has(name)) {
      const takes = known.size === 0 ? 'this request takes none' : `this path takes ${[...known].join(', ')}`;
      throw errors.badRequest(`Unknown query parameter "${name}"; ${takes}.`);
    }
    if (values.has(name)) throw errors.badRequest(`"${name}" may be given only once.`);
    values.set(name, value);
  }
  return values;
}

function parseFields(raw: string | undefined): PlantFields {
  if (raw === undefined) return PLANT_FIELDS;
  const fields: PlantFields = { id: false, name: false, tag: false };
  for (const name of raw.split(',')) {
    if (!(FIELD_NAMES as readonly string[]).includes(name) || fields[name as keyof PlantFields]) {
      throw errors.badRequest('"fields" must list some of id, name and tag, separated by commas, each at most once.');
    }
    fields[name as keyof PlantFields] = true;
  }
  return fields;
}

/** Applies a plant rule to what a client sent: a broken rule is the client's 400. */
export function byPlantRules<T>(apply: () => T): T {
  try {
    return apply();
  } catch (error) {
    if (error instanceof PlantValidationError) throw errors.badRequest(error.message);
    throw error;
  }
}

export function parseListParams(query: string): ListParams {
  const none = { limit: undefined, after: undefined, tag: undefined, fields: PLANT_FIELDS, rawFields: undefined };
  if (query === '') return none;
  // The common `limit=<digits>` alone needs no URLSearchParams.
  if (query.startsWith('limit=')) {
    const limit = parseNonNegativeInt32(query.slice(6));
    if (limit !== undefined) return { ...none, limit };
  }
  const values = parameters(query, LIST_PARAMETERS);
  const rawLimit = values.get('limit');
  const limit = rawLimit === undefined ? undefined : parseNonNegativeInt32(rawLimit);
  if (rawLimit !== undefined && limit === undefined) {
    throw errors.badRequest('"limit" must be a whole number from 0 to 2147483647 written in decimal digits.');
  }
  const rawAfter = values.get('after');
  const after = rawAfter === undefined ? undefined : parseInt64(rawAfter);
  if (rawAfter !== undefined && after === undefined) {
    throw errors.badRequest('"after" must be a signed 64-bit integer written in decimal digits.');
  }
  const tag = values.get('tag');
  if (tag === '') throw errors.badRequest('"tag" must not be empty: leave it out to list plants with any tag or none.');
  const rawFields = values.get('fields');
  return { limit, after, tag, fields: parseFields(rawFields), rawFields };
}

export function parseItemFields(query: string): PlantFields {
  if (query === '') return PLANT_FIELDS;
  return parseFields(parameters(query, ITEM_PARAMETERS).get('fields'));
}

/** A create or a delete takes no query parameter: one given is refused, not ignored. */
export function checkNoParameters(query: string): void {
  if (query !== '') parameters(query, NO_PARAMETERS);
}

/** The path parameter as a plant id; 400 when it is not a decimal int64. */
export function parsePlantId(param: string): bigint {
  let raw: string;
  try {
    raw = decodeURIComponent(param);
  } catch {
    raw = '';
  }
  const id = parseInt64(raw);
  if (id === undefined) throw errors.badRequest('The plant id in the path must be a signed 64-bit integer in decimal digits.');
  return id;
}

/** The `Link` to the page after `lastId`, keeping the list's tag and fields. */
export function nextLink(params: ListParams, limit: number, lastId: bigint): string {
  let target = `/plants?limit=${limit}&after=${lastId}`;
  if (params.tag !== undefined) target += `&tag=${encodeURIComponent(params.tag)}`;
  if (params.rawFields !== undefined) target += `&fields=${params.rawFields}`;
  return `<${target}>; rel="next"`;
}
