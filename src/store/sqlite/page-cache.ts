import type { PlantPage } from '../store.js';

/** Enough for the hot pages of many owners; a page of the largest buffered size holds 1,001 rows. */
const MAX_CACHED_PLANTS = 50_000;

/**
 * Pages of plants as the database last answered them, kept only while nothing can have changed
 * them: the store forgets an owner's pages when its own connection writes that owner's plants,
 * and everything when another connection has committed (PRAGMA data_version moved). Owners
 * are dropped oldest first once the pages hold more than MAX_CACHED_PLANTS plants.
 */
export class PageCache {
  private readonly owners = new Map<string, { pages: Map<string, PlantPage>; plants: number }>();
  private plants = 0;

  get(owner: string, key: string): PlantPage | undefined {
    return this.owners.get(owner)?.pages.get(key);
  }

  set(owner: string, key: string, page: PlantPage): void {
    let entry = this.owners.get(owner);
    if (entry === undefined) {
      entry = { pages: new Map(), plants: 0 };
      this.owners.set(owner, entry);
    }
    // An empty page counts as one, so a flood of owners without plants is bounded too.
    const size = page.plants.length + 1;
    const replaced = entry.pages.get(key);
    const delta = size - (replaced === undefined ? 0 : replaced.plants.length + 1);
    entry.pages.set(key, page);
    entry.plants += delta;
    this.plants += delta;
    for (const [oldest] of this.owners) {
      if (this.plants <= MAX_CACHED_PLANTS) break;
      this.forget(oldest);
    }
  }

  forget(owner: string): void {
    const entry = this.owners.get(owner);
    if (entry === undefined) return;
    this.plants -= entry.plants;
    this.owners.delete(owner);
  }

  clear(): void {
    this.owners.clear();
    this.plants = 0;
  }
}
