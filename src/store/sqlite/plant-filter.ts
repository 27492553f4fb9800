import type { ListQuery } from '../store.js';

/** The WHERE clause for an owner's plants that match a query, and its parameters in order. */
export function plantFilter(owner: string, query: ListQuery): { where: string; params: unknown[] } {
  let where = 'owner = ?';
  const params: unknown[] = [owner];
  if (query.tag !== undefined) {
    where += ' AND tag = ?';
    params.push(query.tag);
  }
  if (query.after !== undefined) {
    where += ' AND id > ?';
    params.push(query.after);
  }
  return { where, params };
}

/** A plant row as raw statements return it: arrays are far cheaper for better-sqlite3 to build than objects. */
export type PlantRow = [id: bigint, name: string, tag: string | null];
