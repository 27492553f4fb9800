/**
 * The fuzz's model of plantstore: each owner's plants, and what the contract (API.md) says a
 * generated request must get. Written from the contract, not from the server's code.
 */
import { bodyBytes, type BodyShape, type Credential, type FuzzRequest } from './requests.js';

export interface ModelPlant {
  id: bigint;
  name: string;
  tag: string | null;
}

/** What the server must answer; `body` and `link` only where the model knows them exactly. */
export interface Expected {
  status: number;
  body?: string;
  /** The Link header's value, or null when there must be none. */
  link?: string | null;
  location?: string;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MAX = 2n ** 31n - 1n;
const MAX_DEPTH = 64;
const BODY_LIMIT = 16_384;
/** Methods node's HTTP parser knows; any other (or a lower-case one) is a malformed request. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND', 'PURGE']);

/** False when node's parser refuses the request line, so no header of it is read. */
export function parsable(request: FuzzRequest): boolean {
  return KNOWN_METHODS.has(request.method.toUpperCase());
}

function codePoints(text: string): number {
  return [...text].length;
}

/** The field rules of name and tag: 1–max code points, well-formed, no control characters, not only white space. */
function validText(text: string, max: number): boolean {
  return text.isWellFormed() && codePoints(text) >= 1 && codePoints(text) <= max && !/[\u0000-\u001f\u007f]/.test(text) && !/^\p{White_Space}*$/u.test(text);
}

/** ASCII digits with an optional '-', in int64 range. */
function int64(text: string): bigint | undefined {
  if (!/^-?[0-9]+$/.test(text)) return undefined;
  const id = BigInt(text);
  return id >= INT64_MIN && id <= INT64_MAX ? id : undefined;
}

/** The path's id: percent-decoded, then an int64. */
function pathId(param: string): bigint | undefined {
  try {
    return int64(decodeURIComponent(param));
  } catch {
    return undefined;
  }
}

interface ListQuery {
  limit?: bigint;
  after?: bigint;
  tag?: string;
  fields: { id: boolean; name: boolean; tag: boolean };
  rawFields?: string;
}

function parseFields(raw: string): ListQuery['fields'] | undefined {
  const names = raw.split(',');
  if (names.some((name) => !['id', 'name', 'tag'].includes(name)) || new Set(names).size !== names.length) return undefined;
  return { id: names.includes('id'), name: names.includes('name'), tag: names.includes('tag') };
}

/** True when every %-escape of the query decodes to UTF-8 (a `%` not followed by two hex digits is itself). */
function utf8Escapes(query: string): boolean {
  try {
    decodeURIComponent(query.replace(/%(?![0-9a-f]{2})/gi, '%25'));
    return true;
  } catch {
    return false;
  }
}

/** The query as the contract reads it; undefined for a 400. */
function parseQuery(query: string | undefined, allowed: readonly string[]): ListQuery | undefined {
  if (!utf8Escapes(query ?? '')) return undefined;
  const result: ListQuery = { fields: { id: false, name: true, tag: true } };
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(query ?? '')) {
    if (!allowed.includes(name) || seen.has(name)) return undefined;
    seen.add(name);
    if (name === 'limit') {
      if (!/^[0-9]+$/.test(value) || BigInt(value) > INT32_MAX) return undefined;
      result.limit = BigInt(value);
    } else if (name === 'after') {
      const after = int64(value);
      if (after === undefined) return undefined;
      result.after = after;
    } else if (name === 'tag') {
      // Only an empty tag is refused; one no plant can have (too long, a control character,
      // only white space) is a filter that matches none.
      if (value === '') return undefined;
      result.tag = value;
    } else {
      const fields = parseFields(value);
      if (fields === undefined) return undefined;
      result.fields = fields;
      result.rawFields = value;
    }
  }
  return result;
}

export function plantText(plant: ModelPlant, fields: ListQuery['fields'] = { id: false, name: true, tag: true }): string {
  const parts: string[] = [];
  if (fields.id) parts.push(`"id":${plant.id}`);
  if (fields.name) parts.push(`"name":${JSON.stringify(plant.name)}`);
  if (fields.tag && plant.tag !== null) parts.push(`"tag":${JSON.stringify(plant.tag)}`);
  return `{${parts.join(',')}}`;
}

/** A plant from a body the contract accepts, or undefined for a 400. */
function newPlant(shape: BodyShape): ModelPlant | undefined {
  if (shape.kind !== 'object') return undefined;
  const keys = shape.members.map((m) => m.key);
  if (new Set(keys).size !== keys.length) return undefined;
  if (shape.members.some((m) => 1 + m.value.depth > MAX_DEPTH)) return undefined;
  const get = (key: string) => shape.members.find((m) => m.key === key)?.value.meaning;
  const id = get('id');
  const name = get('name');
  const tag = get('tag');
  if (id?.type !== 'integer' || id.value < INT64_MIN || id.value > INT64_MAX) return undefined;
  if (name?.type !== 'string' || !validText(name.value, 256)) return undefined;
  if (tag !== undefined && (tag.type !== 'string' || !validText(tag.value, 64))) return undefined;
  return { id: id.value, name: name.value, tag: tag?.type === 'string' ? tag.value : null };
}

function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [essence = '', ...parameters] = contentType.split(';');
  if (essence.trim().toLowerCase() !== 'application/json') return false;
  const charset = parameters.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('charset='));
  return charset === undefined || ['utf-8', 'utf8', 'us-ascii'].includes(charset.slice('charset='.length).replaceAll('"', ''));
}

/** Each owner's plants, as the store must hold them. */
export class PlantModel {
  readonly plants = new Map<string, Map<bigint, ModelPlant>>();

  /** The owner's plants in id order. */
  list(owner: string): ModelPlant[] {
    return [...(this.plants.get(owner)?.values() ?? [])].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * What `request` must get from the server, given who its credential belongs to (undefined:
   * a credential that names nobody); applies the change the request makes to the model.
   */
  apply(request: FuzzRequest, owners: Record<Credential, string | undefined>): Expected {
    // node's client sends the method upper-cased.
    const method = request.method.toUpperCase();
    if (!parsable(request)) return { status: 400 };
    const item = request.path.startsWith('/plants/') && request.path.indexOf('/', '/plants/'.length) === -1;
    if (request.path !== '/plants' && !item) return { status: 404 };
    if (method === 'OPTIONS') return { status: 204 };
    const allowed = item ? ['GET', 'HEAD', 'DELETE'] : ['GET', 'HEAD', 'POST'];
    if (!allowed.includes(method)) return { status: 405 };
    const owner = owners[request.credential];
    if (owner === undefined) return { status: 401 };
    const writes = method === 'POST' || method === 'DELETE';
    if (writes && request.credential === 'reader') return { status: 403 };
    const plants = this.plants.get(owner) ?? new Map<bigint, ModelPlant>();
    this.plants.set(owner, plants);
    const param = request.path.slice('/plants/'.length);

    // A create or a delete takes no query parameter.
    const hasParameter = [...new URLSearchParams(request.query ?? '')].length > 0;
    if (method === 'POST') {
      if (hasParameter) return { status: 400 };
      if (!isJson(request.contentType)) return { status: 415 };
      if (request.contentEncoding !== undefined && request.contentEncoding !== 'identity') return { status: 415 };
      if (request.body === undefined) return { status: 400 };
      if (bodyBytes(request.body).length > BODY_LIMIT) return { status: 413 };
      const plant = request.body.damage === 'none' ? newPlant(request.body.shape) : undefined;
      if (plant === undefined) return { status: 400 };
      const stored = plants.get(plant.id);
      if (stored !== undefined && (stored.name !== plant.name || stored.tag !== plant.tag)) return { status: 409 };
      plants.set(plant.id, plant);
      return { status: 200, body: plantText(plant), location: `/plants/${plant.id}` };
    }
    if (method === 'DELETE') {
      const id = pathId(param);
      if (id === undefined || hasParameter) return { status: 400 };
      return { status: plants.delete(id) ? 204 : 404 };
    }
    if (item) {
      const id = pathId(param);
      const query = parseQuery(request.query, ['fields']);
      if (id === undefined || query === undefined) return { status: 400 };
      const plant = plants.get(id);
      return plant === undefined ? { status: 404 } : { status: 200, body: plantText(plant, query.fields) };
    }
    const query = parseQuery(request.query, ['limit', 'after', 'tag', 'fields']);
    if (query === undefined) return { status: 400 };
    const matching = this.list(owner).filter((p) => (query.after === undefined || p.id > query.after) && (query.tag === undefined || p.tag === query.tag));
    const shown = query.limit === undefined ? matching : matching.slice(0, Number(query.limit));
    const last = shown.at(-1);
    const more = query.limit !== undefined && query.limit > 0n && matching.length > shown.length && last !== undefined;
    return { status: 200, body: `[${shown.map((p) => plantText(p, query.fields)).join(',')}]`, link: more ? nextLink(query, last.id) : null };
  }
}

function nextLink(query: ListQuery, lastId: bigint): string {
  let target = `/plants?limit=${query.limit}&after=${lastId}`;
  if (query.tag !== undefined) target += `&tag=${encodeURIComponent(query.tag)}`;
  if (query.rawFields !== undefined) target += `&fields=${query.rawFields}`;
  return `<${target}>; rel="next"`;
}
