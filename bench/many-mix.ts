/**
 * The request mix of the mixed and many scenarios, as node code (lua/mixed.lua and
 * lua/many.lua are wrk's copies): of every 20 requests 16 GET /plants?limit=10, 3 POST a new
 * plant, 1 DELETE a plant this mix created at least LAG posts earlier, so that its create has
 * been answered; until then that slot is a GET. Each request picks a random owner; an owner
 * with seeded ids asks for `after=<one of them>`. Used by node-load.ts and the soak.
 */
import type { ManyOwner } from './seeded-plants.js';

export const SLOTS = 20;
export const LAG = 200;

export type MixKind = 'get' | 'create' | 'delete';

export interface MixRequest {
  kind: MixKind;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: string;
  /** Index of the owner in the mix's owners. */
  owner: number;
  /** The plant a create or delete is about. */
  id?: number;
}

export class ManyMix {
  #n = 0;
  #posted = 0;
  #deleted = 0;
  /** Owner of each plant posted, by post number, until its delete is sent. */
  readonly #postedOwner = new Map<number, number>();

  readonly owners: readonly ManyOwner[];
  readonly #idBase: number;
  readonly #random: () => number;

  /** Created ids are idBase + 1, idBase + 2, … */
  constructor(owners: readonly ManyOwner[], idBase: number, random: () => number = Math.random) {
    if (owners.length === 0) throw new Error('the mix needs at least one owner');
    this.owners = owners;
    this.#idBase = idBase;
    this.#random = random;
  }

  #pick(count: number): number {
    return Math.floor(this.#random() * count);
  }

  next(): MixRequest {
    this.#n++;
    const slot = this.#n % SLOTS;
    if (slot >= 2 && slot <= 4) {
      const posted = ++this.#posted;
      const owner = this.#pick(this.owners.length);
      this.#postedOwner.set(posted, owner);
      const id = this.#idBase + posted;
      const body = JSON.stringify({ id, name: `bench plant ${posted}`, tag: 'bench' });
      return { kind: 'create', method: 'POST', path: '/plants', body, owner, id };
    }
    if (slot === 5 && this.#deleted + LAG < this.#posted) {
      const deleted = ++this.#deleted;
      const owner = this.#postedOwner.get(deleted) ?? 0;
      this.#postedOwner.delete(deleted);
      const id = this.#idBase + deleted;
      return { kind: 'delete', method: 'DELETE', path: `/plants/${id}`, owner, id };
    }
    const owner = this.#pick(this.owners.length);
    const ids = this.owners[owner]?.ids ?? [];
    const after = ids.length === 0 ? '' : `&after=${ids[this.#pick(ids.length)]}`;
    return { kind: 'get', method: 'GET', path: `/plants?limit=10${after}`, owner };
  }

  tokenOf(request: MixRequest): string {
    return this.owners[request.owner]?.token ?? '';
  }
}
