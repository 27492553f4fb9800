import type { PlantPage } from '../store.js';

/**
 * The budget, in characters of names and tags plus a fixed charge per plant and per page. The
 * pages and the JSON built from them (plants-routes.ts) hold about twice as many bytes: some
 * tens of MB at most, whatever the names.
 */
const MAX_CACHED_CHARS = 4_000_000;
const CHARS_PER_PLANT = 32;
const CHARS_PER_PAGE = 64;

/** Past this many pages of one owner, a write forgets them all rather than checking each. */
const MAX_PAGES_CHECKED = 64;

/** Where a page sits in its owner's id order: after `after` (from the start when undefined), up to `nextId`. */
export interface PageBounds {
  after: bigint | undefined;
  /** The first id past the page; undefined when the page reaches the end. */
  nextId: bigint | undefined;
}

const UNBOUNDED: PageBounds = { after: undefined, nextId: undefined };

interface CachedPage extends PageBounds {
  page: PlantPage;
  chars: number;
}

interface OwnerPages {
  pages: Map<string, CachedPage>;
  chars: number;
}

/**
 * Whether creating or deleting the plant `id` can change a page: not when the id is at or before
 * the page's start, nor past its next id (which stays, so the page and its "more" stay too).
 */
function changes(id: bigint, bounds: PageBounds): boolean {
  return (bounds.after === undefined || id > bounds.after) && (bounds.nextId === undefined || id <= bounds.nextId);
}

function charsOf(page: PlantPage): number {
  let chars = CHARS_PER_PAGE;
  for (const plant of page.plants) chars += CHARS_PER_PLANT + plant.name.length + (plant.tag?.length ?? 0);
  return chars;
}

/**
 * Pages of plants as the database last answered them, kept only while nothing can have changed
 * them: the store forgets the pages an id could change when its own connection creates or
 * deletes that plant, and everything when another connection has committed (PRAGMA data_version
 * moved). Past the budget, the owners read least recently are dropped first.
 */
export class PageCache {
  private readonly owners = new Map<string, OwnerPages>();
  private chars = 0;
  /** The owner at the back of `owners` (the one used last), so a run of its hits moves nothing. */
  private newest: string | undefined;

  get(owner: string, key: string): PlantPage | undefined {
    const entry = this.owners.get(owner);
    const cached = entry?.pages.get(key);
    if (cached === undefined) return undefined;
    // Map order is the eviction order: a hit moves the owner to the back, unless it is there already.
    if (owner !== this.newest) this.moveToBack(owner, entry as OwnerPages);
    return cached.page;
  }

  /** `bounds` tells which writes can change the page; without them, any write of the owner's plants does. */
  set(owner: string, key: string, page: PlantPage, bounds: PageBounds = UNBOUNDED): void {
    // Storing a page is a use too: the owner moves to the back, so the loop below keeps it.
    const entry = this.owners.get(owner) ?? { pages: new Map<string, CachedPage>(), chars: 0 };
    this.moveToBack(owner, entry);
    const chars = charsOf(page);
    const delta = chars - (entry.pages.get(key)?.chars ?? 0);
    entry.pages.set(key, { page, after: bounds.after, nextId: bounds.nextId, chars });
    entry.chars += delta;
    this.chars += delta;
    for (const [oldest] of this.owners) {
      if (this.chars <= MAX_CACHED_CHARS) break;
      this.forget(oldest);
    }
  }

  private moveToBack(owner: string, entry: OwnerPages): void {
    this.owners.delete(owner);
    this.owners.set(owner, entry);
    this.newest = owner;
  }

  /** Forgets the owner's pages that creating or deleting the plant `id` can change. */
  forgetAround(owner: string, id: bigint): void {
    const entry = this.owners.get(owner);
    if (entry === undefined) return;
    if (entry.pages.size > MAX_PAGES_CHECKED) return this.forget(owner);
    for (const [key, cached] of entry.pages) {
      if (!changes(id, cached)) continue;
      entry.pages.delete(key);
      entry.chars -= cached.chars;
      this.chars -= cached.chars;
    }
  }

  forget(owner: string): void {
    const entry = this.owners.get(owner);
    if (entry === undefined) return;
    this.chars -= entry.chars;
    this.owners.delete(owner);
    if (owner === this.newest) this.newest = undefined;
  }

  clear(): void {
    this.owners.clear();
    this.newest = undefined;
    this.chars = 0;
  }
}
