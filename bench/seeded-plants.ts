/**
 * The plants every server is seeded with, and the many-owner data set: what each seeded plant
 * is called, and a file that lists each many-owner token with the ids of its seeded plants,
 * read by lua/many.lua (to ask for `after=<a stored id>`) and by the in-memory baseline.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export interface SeededPlant {
  name: string;
  tag: string | null;
}

export function plantOf(id: number | bigint): SeededPlant {
  return { name: `seeded plant ${id}`, tag: BigInt(id) % 2n === 0n ? 'seed' : null };
}

/** Owners of the many scenario and plants each (issue 11). */
export const MANY_PLANTS_PER_OWNER = 200;

/**
 * Ids the load creates (see run.ts: 1e9 per run) stay below this, so a created id never meets
 * a seeded one; seeded ids are spread over the rest of the safe-integer range, negatives too.
 */
export const CREATED_IDS_BELOW = 2 ** 40;

/** `count` distinct ids, uniformly spread over ±(2^53 − 1) outside [0, CREATED_IDS_BELOW). */
export function spreadIds(count: number, random: () => number = Math.random): number[] {
  const ids = new Set<number>();
  while (ids.size < count) {
    const id = Math.floor((random() * 2 - 1) * Number.MAX_SAFE_INTEGER);
    if (id >= 0 && id < CREATED_IDS_BELOW) continue;
    ids.add(id);
  }
  return [...ids];
}

export interface ManyOwner {
  token: string;
  ids: number[];
}

/** One line per owner: its token, then its seeded ids, space-separated. */
export function writeManyFile(path: string, owners: readonly ManyOwner[]): void {
  writeFileSync(path, owners.map((owner) => [owner.token, ...owner.ids].join(' ')).join('\n') + '\n');
}

export function readManyFile(path: string): ManyOwner[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [token = '', ...ids] = line.split(' ');
      return { token, ids: ids.map(Number) };
    });
}
