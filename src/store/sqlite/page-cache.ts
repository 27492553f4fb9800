import type { PlantPage } from '../store.js';

/**
 * The budget, in characters of names and tags plus a fixed charge per plant and per page. The
 * pages and the JSON built from them (plants-routes.ts) hold about twice as many bytes: some
 * tens of MB at most, whatever the names.
 */
const MAX_CACHED_CHARS = 4_000_000;
const CHARS_PER_PLANT = 32;
const CHARS_PER_PAGE = 64;

interface OwnerPages {
  pages: Map<string, PlantPage>;
  chars: number;
}

function charsOf(page: PlantPage): number {
  let chars = CHARS_PER_PAGE;
  for (const plant of page.plants) chars += CHARS_PER_PLANT + plant.name.length + (plant.tag?.length ?? 0);
  return chars;
}

/**
 * Pages of plants as the database last answered them, kept only while nothing can have changed
 * them: the store forgets an owner's pages when its own connection writes that owner's plants,
 * and everything when another connection has committed (PRAGMA data_version moved). Past the
 * budget, the owners read least recently are dropped first.
 */
export class PageCache {
  private readonly owners = new Map<string, OwnerPages>();
  private chars = 0;

  get(owner: string, key: string): PlantPage | undefined {
    const entry = this.owners.get(owner);
    const page = entry?.pages.get(key);
    if (page !== undefined) {
      // Map order is the eviction order: a hit moves the owner to the back.
      this.owners.delete(owner);
      this.owners.set(owner, entry as OwnerPages);
    }
    return page;
  }

  set(owner: string, key: string, page: PlantPage): void {
    // Storing a page is a use too: the owner moves to the back, so the loop below keeps it.
    const entry = this.owners.get(owner) ?? { pages: new Map<string, PlantPage>(), chars: 0 };
    this.owners.delete(owner);
    this.owners.set(owner, entry);
    const replaced = entry.pages.get(key);
    const delta = charsOf(page) - (replaced === undefined ? 0 : charsOf(replaced));
    entry.pages.set(key, page);
    entry.chars += delta;
    this.chars += delta;
    for (const [oldest] of this.owners) {
      if (this.chars <= MAX_CACHED_CHARS) break;
      this.forget(oldest);
    }
  }

  forget(owner: string): void {
    const entry = this.owners.get(owner);
    if (entry === undefined) return;
    this.chars -= entry.chars;
    this.owners.delete(owner);
  }

  clear(): void {
    this.owners.clear();
    this.chars = 0;
  }
}
