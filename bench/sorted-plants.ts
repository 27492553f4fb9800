/**
 * One owner's plants in id order for the in-memory baseline: a sorted id array beside a Map,
 * so a page after an id is a binary search and a slice, as a B-tree index would give it.
 */
export interface Plant {
  name: string;
  tag?: string;
}

export class SortedPlants {
  readonly #ids: number[] = [];
  readonly #byId = new Map<number, Plant>();

  get(id: number): Plant | undefined {
    return this.#byId.get(id);
  }

  /** Stores the plant unless the id is taken; returns whether it was stored. */
  add(id: number, plant: Plant): boolean {
    if (this.#byId.has(id)) return false;
    this.#byId.set(id, plant);
    const at = this.#firstAbove(id);
    if (at === this.#ids.length) this.#ids.push(id);
    else this.#ids.splice(at, 0, id);
    return true;
  }

  delete(id: number): boolean {
    if (!this.#byId.delete(id)) return false;
    this.#ids.splice(this.#firstAbove(id) - 1, 1);
    return true;
  }

  /** Up to `limit` plants with ids above `after` (all when undefined), and whether more follow. */
  page(after: number | undefined, limit: number): { ids: number[]; plants: Plant[]; more: boolean } {
    const from = after === undefined ? 0 : this.#firstAbove(after);
    const ids = this.#ids.slice(from, from + limit);
    return { ids, plants: ids.map((id) => this.#byId.get(id) as Plant), more: from + ids.length < this.#ids.length };
  }

  /** The index of the first id greater than `id`. */
  #firstAbove(id: number): number {
    let low = 0;
    let high = this.#ids.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.#ids[mid] as number) <= id) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
