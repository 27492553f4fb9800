/**
 * A typed client for the plantstore HTTP API over `fetch`, so it runs in Node 20 and in
 * browsers. Ids are bigint in and out and never pass through a double.
 */
import { PlantStoreResponseError } from './errors.js';
import { nextCursor } from './link.js';
import { retryDelayMs, sleep } from './retry.js';
import type { ListPlantsOptions, NewPlant, Plant, PlantId, PlantPage, RequestOptions } from './types.js';
import { idText, newPlantJson, readError, readPlant, readPlants } from './wire.js';

/** The subset of `fetch` the client calls; pass your own to add a proxy, logging or a test double. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface PlantStoreClientOptions {
  /** The service's address, such as `http://127.0.0.1:8080`; a path prefix is kept. */
  baseUrl: string | URL;
  /** An API token (`pst_…`) or a JWT, sent as `Authorization: Bearer <token>`. */
  token: string;
  /** Defaults to the global `fetch`. */
  fetch?: FetchLike;
  /** How often a 503 or 429 answer is retried before it is thrown (default 3). */
  retries?: number;
  /** The longest pause a Retry-After may ask for; a longer one is thrown at once (default 30 000 ms). */
  maxRetryDelayMs?: number;
}

/** Every list asks for the ids, which the seed's default list leaves out. */
const ALL_FIELDS = 'id,name,tag';
const PAGE_SIZE = 1000;
/** setTimeout runs a longer delay at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export class PlantStoreClient {
  private readonly base: URL;
  private readonly authorization: string;
  private readonly fetch: FetchLike;
  private readonly retries: number;
  private readonly maxRetryDelayMs: number;

  constructor(options: PlantStoreClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      // Not echoed: a URL may carry a password, and error messages end up in logs.
      throw new TypeError('The base URL is not an absolute URL (such as http://127.0.0.1:8080/).');
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError('The base URL must be http: or https:.');
    // fetch refuses such a URL with an error that quotes it, password and all.
    if (base.username !== '' || base.password !== '') throw new TypeError('The base URL must not carry a user name or password: the client sends its token.');
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    base.search = '';
    base.hash = '';
    if (typeof options.token !== 'string' || !/^[\x21-\x7e]+$/.test(options.token)) {
      throw new TypeError('The token must be a non-empty string of visible ASCII characters.');
    }
    this.base = base;
    this.authorization = `Bearer ${options.token}`;
    // Called through globalThis: browsers refuse a fetch that is called as a method of another object.
    this.fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.retries = options.retries ?? 3;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    if (!(this.maxRetryDelayMs >= 0 && this.maxRetryDelayMs <= LONGEST_TIMER_MS)) {
      throw new RangeError(`maxRetryDelayMs must be from 0 to ${LONGEST_TIMER_MS} (about 24.8 days, the longest pause a timer can hold).`);
    }
  }

  /** Creates a plant; creating the same id, name and tag again is safe and answers the stored plant. 409 on a different one. */
  async createPlant(plant: NewPlant, options: RequestOptions = {}): Promise<Plant> {
    const body = newPlantJson(plant);
    const { status, text } = await this.send('POST', this.url('plants'), options.signal, body);
    return readPlant(text, status, plant.id);
  }

  /** The caller's plant with this id; throws PlantStoreError 404 when it has none. */
  async getPlant(id: PlantId, options: RequestOptions = {}): Promise<Plant> {
    const url = this.url(`plants/${idText(id)}`, { fields: ALL_FIELDS });
    const { status, text } = await this.send('GET', url, options.signal);
    return readPlant(text, status, id);
  }

  /** One page of the caller's plants in id order, and the cursor of the next page. Without `limit`, every plant. */
  async listPlants(options: ListPlantsOptions = {}): Promise<PlantPage> {
    const query: Record<string, string> = {};
    if (options.limit !== undefined) query.limit = String(options.limit);
    if (options.after !== undefined) query.after = idText(options.after);
    if (options.tag !== undefined) query.tag = options.tag;
    query.fields = ALL_FIELDS;
    const { status, text, link } = await this.send('GET', this.url('plants', query), options.signal);
    const plants = readPlants(text, status);
    const nextAfter = nextCursor(link, status);
    // The contract's cursor is the page's last id; any other would repeat or skip plants.
    if (nextAfter !== undefined && (plants.at(-1)?.id !== nextAfter || (options.after !== undefined && nextAfter <= options.after))) {
      throw new PlantStoreResponseError(status, `The service answered ${status} with a next link (after=${nextAfter}) that does not continue after the page's last plant.`);
    }
    return { plants, nextAfter };
  }

  /** Every plant of the caller (with this tag, after this id, when given), page by page, following the Link cursor. */
  async *plants(options: { tag?: string; after?: PlantId; pageSize?: number } & RequestOptions = {}): AsyncGenerator<Plant, void, undefined> {
    const limit = options.pageSize ?? PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('pageSize must be a positive integer.');
    let after = options.after;
    do {
      const page = await this.listPlants({ limit, after, tag: options.tag, signal: options.signal });
      yield* page.plants;
      after = page.nextAfter;
    } while (after !== undefined);
  }

  /**
   * Deletes the caller's plant; throws PlantStoreError 404 when it has none. A 404 to a retry
   * after a 503 is no error: the 503 may have come after the delete was made.
   */
  async deletePlant(id: PlantId, options: RequestOptions = {}): Promise<void> {
    await this.send('DELETE', this.url(`plants/${idText(id)}`), options.signal);
  }

  private url(path: string, query: Record<string, string> = {}): string {
    const url = new URL(path, this.base);
    for (const [name, value] of Object.entries(query)) {
      // The URL would carry U+FFFD in its place: a different, valid value.
      if (!value.isWellFormed()) throw new RangeError(`${name} holds an unpaired surrogate, which is no character.`);
      url.searchParams.set(name, value);
    }
    return url.href;
  }

  /** Sends a request, retrying 503 and 429 as their Retry-After says; throws PlantStoreError for any other refusal. */
  private async send(method: string, url: string, signal: AbortSignal | undefined, body?: string): Promise<{ status: number; text: string; link: string | null }> {
    const headers: Record<string, string> = { authorization: this.authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let unavailable = false;
    for (let attempt = 0; ; attempt++) {
      const response = await this.fetch(url, { method, headers, body, signal });
      const text = await response.text();
      if (response.ok) return { status: response.status, text, link: response.headers.get('link') };
      if (method === 'DELETE' && response.status === 404 && unavailable) return { status: 204, text: '', link: null };
      unavailable ||= response.status === 503;
      if ((response.status === 503 || response.status === 429) && attempt < this.retries) {
        const delay = retryDelayMs(response.headers.get('retry-after'), attempt);
        if (delay <= this.maxRetryDelayMs) {
          await sleep(delay, signal);
          continue;
        }
      }
      throw readError(text, response.status, response.statusText);
    }
  }
}
