import type { ListQuery } from '../store.js';

/**
 * The FROM and WHERE clauses for an owner's plants that match a query, and its parameters in
 * order. A tag filter names its index: without statistics SQLite prefers the primary key, whose
 * id order saves a sort, and then reads every plant of the owner to find the few with the tag.
 */
export function plantFilter(owner: string, query: ListQuery): { from: string; params: unknown[] } {
  let from = 'plants WHERE owner = ?';
  const params: unknown[] = [owner];
  if (query.tag !== undefined) {
    from = 'plants INDEXED BY plants_by_tag WHERE owner = ? AND tag = ?';
    params.push(query.tag);
  }
  if (query.after !== undefined) {
    from += ' AND id > ?';
    params.push(query.after);
  }
  return { from, params };
}
