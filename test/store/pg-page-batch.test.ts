/**
 * On PostgreSQL the page reads of one turn share one statement: each page must come back as
 * it would alone, its token checked on its own, and all of them in one round trip.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { issueToken, digestToken } from '../../src/auth/api-tokens.js';
import { INT64_MAX, INT64_MIN } from '../../src/plants/int64.js';
import type { ListQuery, PlantPage, Store } from '../../src/store/store.js';
import { startRoundTripCounter } from '../helpers/pg-round-trips.js';
import { ALL_FIELDS, plantsOfPage } from '../helpers/page.js';
import { storeFactories } from './store-factories.js';

const postgres = storeFactories().find((factory) => factory.kind === 'postgres');
if (postgres === undefined) throw new Error('no postgres store factory');

const ids = [INT64_MIN, -5n, 1n, 2n, 3n, 10n, 2n ** 53n + 1n, INT64_MAX];

async function plantsOf(store: Store, owner: string): Promise<void> {
  for (const id of ids) await store.createPlant(owner, { id, name: `${owner} ${id}`, tag: id % 2n === 0n ? 'even' : null });
}

const page = (plants: bigint[], hasMore: boolean) => ({ plantIds: plants, hasMore });
const idsOf = (result: PlantPage) => page(plantsOfPage(result).map((plant) => plant.id), result.nextAfter !== undefined);

describe('page reads batched on postgres', { skip: postgres.skip }, () => {
  test('pages read at once match pages read alone, one round trip for all, each token checked', async (t) => {
    const url = await postgres.freshUrl(t);
    const counter = await startRoundTripCounter(t, url);
    const store = await postgres.open(t, { url: counter.url });
    for (const owner of ['ana', 'bo']) await plantsOf(store, owner);
    const valid = await issueToken(store, { user: 'ana' });
    const revoked = await issueToken(store, { user: 'bo' });
    assert.ok(valid !== undefined && revoked !== undefined);
    await store.revokeToken(revoked.record.id, new Date());
    const token = { digest: digestToken(valid.token) };

    const asks: [string, ListQuery & { limit: number }][] = [
      ['ana', { after: undefined, tag: undefined, limit: 3 }],
      ['ana', { after: INT64_MIN, tag: undefined, limit: 2 }],
      ['ana', { after: 2n, tag: undefined, limit: 10 }],
      ['ana', { after: 2n ** 53n + 1n, tag: undefined, limit: 1 }],
      ['ana', { after: INT64_MAX, tag: undefined, limit: 5 }],
      ['ana', { after: 1n, tag: 'even', limit: 5 }],
      ['nobody', { after: undefined, tag: undefined, limit: 5 }],
    ];
    const alone: ReturnType<typeof idsOf>[] = [];
    for (const [owner, query] of asks) alone.push(idsOf(await store.listPlants(owner, { ...query, fields: ALL_FIELDS }, token)));
    assert.deepEqual(alone[0], page([INT64_MIN, -5n, 1n], true));
    assert.deepEqual(alone[2], page([3n, 10n, 2n ** 53n + 1n, INT64_MAX], false));
    assert.deepEqual(alone[3], page([INT64_MAX], false));
    assert.deepEqual(alone[4], page([], false));
    assert.deepEqual(alone[6], page([], false));

    counter.reset();
    const together = await Promise.all(asks.map(([owner, query]) => store.listPlants(owner, { ...query, fields: ALL_FIELDS }, token)));
    assert.deepEqual(together.map(idsOf), alone);
    // The batchable pages went as one statement; the tag filter and the page after INT64_MAX alone.
    assert.equal(counter.count, 3);

    // A refused token fails its own page only, and one without a token is not checked.
    const mixed = await Promise.allSettled([
      store.listPlants('bo', { after: undefined, tag: undefined, limit: 2, fields: ALL_FIELDS }, { digest: digestToken(revoked.token) }),
      store.listPlants('bo', { after: undefined, tag: undefined, limit: 2, fields: ALL_FIELDS }, token),
      store.listPlants('bo', { after: undefined, tag: undefined, limit: 2, fields: ALL_FIELDS }),
      store.listPlants('ana', { after: 100n, tag: undefined, limit: 2, fields: ALL_FIELDS }, { digest: digestToken('pst_unknown') }),
    ]);
    assert.deepEqual(
      mixed.map((outcome) => (outcome.status === 'fulfilled' ? idsOf(outcome.value) : (outcome.reason as { status?: number }).status)),
      [401, page([INT64_MIN, -5n], true), page([INT64_MIN, -5n], true), 401],
    );
  });
});
