/** A store's page read back as plants: its JSON parsed exactly, ids as bigint. */
import assert from 'node:assert/strict';
import type { PlantFields, StoredPlant } from '../../src/plants/plant.js';
import type { ListQuery, PlantPage, Store, TokenCheck } from '../../src/store/store.js';
import { JsonNumber, parseJson } from '../../src/util/strict-json.js';

export const ALL_FIELDS: PlantFields = { id: true, name: true, tag: true };

/** The plants of a page read with ALL_FIELDS. */
export function plantsOfPage(page: PlantPage): StoredPlant[] {
  const members = parseJson(`[${page.members}]`);
  assert.ok(Array.isArray(members), 'a page is the members of an array');
  return members.map((member) => {
    assert.ok(member instanceof Map);
    const id = member.get('id');
    const name = member.get('name');
    const tag = member.get('tag') ?? null;
    assert.ok(id instanceof JsonNumber && typeof name === 'string' && (tag === null || typeof tag === 'string'), `a plant: ${page.members}`);
    return { id: BigInt(id.text), name, tag };
  });
}

/** Reads a page with every field; `hasMore` says the page named a next one, which starts after its last plant. */
export async function listPage(store: Store, owner: string, query: ListQuery & { limit: number }, token?: TokenCheck) {
  const page = await store.listPlants(owner, { ...query, fields: ALL_FIELDS }, token);
  const plants = plantsOfPage(page);
  if (page.nextAfter !== undefined) assert.equal(page.nextAfter, plants.at(-1)?.id, 'the next page starts after the last plant');
  return { plants, hasMore: page.nextAfter !== undefined };
}
