/** The PlantStore contract, one suite run against every store. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { digestToken, issueToken } from '../../src/auth/api-tokens.js';
import { ApiError } from '../../src/errors.js';
import { plantsJson, type StoredPlant } from '../../src/plants/plant.js';
import type { PlantStream, Store } from '../../src/store/store.js';
import { listPage } from '../helpers/page.js';
import { uniqueName } from '../helpers/server.js';
import { storeFactories } from './store-factories.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

async function drain(stream: PlantStream, chunk = 2): Promise<StoredPlant[]> {
  const all: StoredPlant[] = [];
  try {
    for (let next = await stream.next(chunk); next.length > 0; next = await stream.next(chunk)) all.push(...next);
  } finally {
    await stream.close();
  }
  return all;
}

async function seed(store: Store, owner: string, ids: bigint[]): Promise<void> {
  for (const id of ids) await store.createPlant(owner, { id, name: `plant ${id}`, tag: null });
}

for (const factory of storeFactories()) {
  describe(`PlantStore contract on ${factory.kind}`, { skip: factory.skip }, () => {
    test('migrate is idempotent and safe when two stores run it at once', async (t) => {
      const url = await factory.freshUrl(t);
      const [a, b] = await Promise.all([factory.open(t, { url }), factory.open(t, { url })]);
      assert.deepEqual(await Promise.all([a.migrate(), b.migrate()]), [0, 0]);
      await a.ping();
    });

    test('createPlant creates, then answers unchanged for the same plant and conflict for another', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      const fern = { id: 7n, name: 'Fern', tag: 'green' };
      assert.deepEqual(await store.createPlant(owner, fern), { outcome: 'created', stored: fern });
      assert.deepEqual(await store.createPlant(owner, { ...fern }), { outcome: 'unchanged', stored: fern });
      assert.deepEqual(await store.createPlant(owner, { ...fern, name: 'Moss' }), { outcome: 'conflict', stored: fern });
      assert.deepEqual(await store.createPlant(owner, { ...fern, tag: null }), { outcome: 'conflict', stored: fern });
      assert.deepEqual((await listPage(store, owner, { after: undefined, tag: undefined, limit: 10 })).plants, [fern]);
    });

    test('concurrent creates of one id with different bodies give exactly one created, and it is stored', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      const attempts = Array.from({ length: 20 }, (_, i) => ({ id: 42n, name: `body ${i}`, tag: null }));
      const results = await Promise.all(attempts.map((plant) => store.createPlant(owner, plant)));
      const created = results.filter((result) => result.outcome === 'created');
      assert.equal(created.length, 1);
      assert.equal(results.filter((result) => result.outcome === 'conflict').length, 19);
      for (const result of results) assert.deepEqual(result.stored, created[0]?.stored);
      assert.deepEqual((await listPage(store, owner, { after: undefined, tag: undefined, limit: 10 })).plants, [created[0]?.stored]);
    });

    test('a burst of creates with repeats inside it: one created per id, repeats unchanged or conflict by body', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      const burst = [1n, 2n, 2n, 2n, 3n, 2n, 4n, 3n].map((id, i) => ({ id, name: i % 2 === 0 ? `even ${id}` : `odd ${id}`, tag: null }));
      const results = await Promise.all(burst.map((plant) => store.createPlant(owner, plant)));
      const listed = (await listPage(store, owner, { after: undefined, tag: undefined, limit: 10 })).plants;
      assert.deepEqual(listed.map((plant) => plant.id), [1n, 2n, 3n, 4n]);
      for (const id of [1n, 2n, 3n, 4n]) {
        const forId = results.filter((result, i) => burst[i]?.id === id);
        assert.equal(forId.filter((result) => result.outcome === 'created').length, 1, `one created for ${id}`);
        const stored = listed.find((plant) => plant.id === id);
        for (const [i, result] of results.entries()) {
          if (burst[i]?.id !== id) continue;
          assert.deepEqual(result.stored, stored);
          if (result.outcome !== 'created') assert.equal(result.outcome, burst[i]?.name === stored?.name ? 'unchanged' : 'conflict');
        }
      }
    });

    test('ids keep all 64 bits and list in numeric order, negatives first', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      const ids = [INT64_MAX, 9007199254740993n, 0n, -1n, INT64_MIN, 10n, 9n];
      await seed(store, owner, ids);
      const listed = (await listPage(store, owner, { after: undefined, tag: undefined, limit: 100 })).plants.map((plant) => plant.id);
      assert.deepEqual(listed, [...ids].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
      assert.equal(await store.deletePlant(owner, 9007199254740992n), false);
      assert.equal(await store.deletePlant(owner, 9007199254740993n), true);
    });

    test('owners are apart: the same id twice, each sees and deletes only its own', async (t) => {
      const store = await factory.open(t);
      const [alice, bob] = [uniqueName('alice'), uniqueName('bob')];
      await store.createPlant(alice, { id: 1n, name: 'Fern', tag: null });
      assert.equal((await store.createPlant(bob, { id: 1n, name: 'Cactus', tag: null })).outcome, 'created');
      assert.equal(await store.deletePlant(bob, 2n), false);
      assert.equal(await store.deletePlant(bob, 1n), true);
      assert.deepEqual((await listPage(store, alice, { after: undefined, tag: undefined, limit: 10 })).plants, [{ id: 1n, name: 'Fern', tag: null }]);
      assert.deepEqual((await listPage(store, bob, { after: undefined, tag: undefined, limit: 10 })).plants, []);
      assert.equal(await store.deletePlant(bob, 1n), false);
    });

    test('listPlants pages with after and limit and says when more follow', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      await seed(store, owner, [1n, 2n, 3n, 4n, 5n]);
      const first = await listPage(store, owner, { after: undefined, tag: undefined, limit: 2 });
      assert.deepEqual(first.plants.map((plant) => plant.id), [1n, 2n]);
      assert.equal(first.hasMore, true);
      const last = await listPage(store, owner, { after: 3n, tag: undefined, limit: 2 });
      assert.deepEqual(last.plants.map((plant) => plant.id), [4n, 5n]);
      assert.equal(last.hasMore, false);
      assert.deepEqual((await listPage(store, owner, { after: 5n, tag: undefined, limit: 2 })).plants, []);
    });

    test("a page's JSON is plantJson's, for every `fields` and every character a name or tag may hold", async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      // Every code point but the control characters and surrogates, 256 to a name; odd plants get a tag.
      const characters: string[] = [];
      for (let c = 0x20; c <= 0x10ffff; c += c < 0x10000 ? 1 : 0x3fff) {
        if (c !== 0x7f && (c < 0xd800 || c > 0xdfff)) characters.push(String.fromCodePoint(c));
      }
      const plants: StoredPlant[] = [];
      for (let i = 0; i * 256 < characters.length; i++) {
        const name = characters.slice(i * 256, (i + 1) * 256).join('');
        plants.push({ id: BigInt(i) - 64n, name, tag: i % 2 === 1 ? [...name].slice(0, 64).join('') : null });
      }
      plants.push({ id: INT64_MIN, name: 'min', tag: 'x' }, { id: INT64_MAX, name: 'max', tag: null });
      for (const plant of plants) assert.equal((await store.createPlant(owner, plant)).outcome, 'created');
      plants.sort((a, b) => (a.id < b.id ? -1 : 1));
      for (let mask = 0; mask < 8; mask++) {
        const fields = { id: (mask & 1) !== 0, name: (mask & 2) !== 0, tag: (mask & 4) !== 0 };
        const page = await store.listPlants(owner, { after: undefined, tag: undefined, limit: plants.length, fields });
        assert.equal(page.members, plantsJson(plants, fields), JSON.stringify(fields));
        assert.equal(page.nextAfter, undefined);
      }
    });

    test('one store answers every shape of page query in turn: with and without tag and after, any fields', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      const plants: StoredPlant[] = [1n, 2n, 3n, 4n, 5n, 6n].map((id) => ({ id, name: `plant ${id}`, tag: id % 2n === 0n ? 'even' : null }));
      for (const plant of plants) await store.createPlant(owner, plant);
      for (let round = 0; round < 2; round++) {
        for (const tag of [undefined, 'even']) {
          for (const after of [undefined, 2n]) {
            for (let mask = 0; mask < 8; mask++) {
              const fields = { id: (mask & 1) !== 0, name: (mask & 2) !== 0, tag: (mask & 4) !== 0 };
              const matching = plants.filter((plant) => (tag === undefined || plant.tag === tag) && (after === undefined || plant.id > after));
              const page = await store.listPlants(owner, { after, tag, limit: 2, fields });
              const what = JSON.stringify({ tag, after: after?.toString(), fields });
              assert.equal(page.members, plantsJson(matching.slice(0, 2), fields), what);
              assert.equal(page.nextAfter, matching.length > 2 ? matching[1]?.id : undefined, what);
            }
          }
        }
      }
    });

    test('a page read again shows the writes made since, by this store and by another on the same database', async (t) => {
      const url = await factory.freshUrl(t);
      const [store, other] = await Promise.all([factory.open(t, { url }), factory.open(t, { url })]);
      const owner = uniqueName();
      const ids = async (after?: bigint) => (await listPage(store, owner, { after: after, tag: undefined, limit: 10 })).plants.map((plant) => plant.id);
      await seed(store, owner, [1n, 2n]);
      assert.deepEqual(await ids(), [1n, 2n]);
      assert.deepEqual(await ids(1n), [2n]);
      await seed(store, owner, [3n]);
      assert.deepEqual(await ids(), [1n, 2n, 3n]);
      await store.deletePlant(owner, 1n);
      assert.deepEqual(await ids(), [2n, 3n]);
      await seed(other, owner, [4n]);
      assert.deepEqual(await ids(), [2n, 3n, 4n]);
      assert.deepEqual(await ids(1n), [2n, 3n, 4n]);
      await other.deletePlant(owner, 2n);
      assert.deepEqual(await ids(), [3n, 4n]);
    });

    test('pages read between creates and deletes anywhere in the id order always match what is stored', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      const stored = new Set<bigint>();
      const shapes: [after: bigint | undefined, limit: number][] = [[undefined, 1], [undefined, 3], [4n, 2], [9n, 3], [15n, 5], [undefined, 40]];
      let seed = 7;
      const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
      for (let step = 0; step < 150; step++) {
        const id = BigInt(random(24));
        if (random(3) === 0) {
          assert.equal(await store.deletePlant(owner, id), stored.delete(id), `step ${step}: delete ${id}`);
        } else {
          await store.createPlant(owner, { id, name: `plant ${id}`, tag: null });
          stored.add(id);
        }
        const sorted = [...stored].sort((a, b) => (a < b ? -1 : 1));
        for (const [after, limit] of shapes) {
          const following = sorted.filter((candidate) => after === undefined || candidate > after);
          const page = await listPage(store, owner, { after: after, tag: undefined, limit: limit });
          const what = `step ${step}: after ${after} limit ${limit}`;
          assert.deepEqual(page.plants.map((plant) => plant.id), following.slice(0, limit), what);
          assert.equal(page.hasMore, following.length > limit, what);
        }
      }
    });

    test('listPlants shows another store’s creates and deletes on the next call', async (t) => {
      const url = await factory.freshUrl(t);
      const [store, other] = await Promise.all([factory.open(t, { url }), factory.open(t, { url })]);
      const owner = uniqueName();
      await seed(store, owner, [10n, 20n, 30n, 40n]);
      const firstTwo = async () => (await listPage(store, owner, { after: undefined, tag: undefined, limit: 2 })).plants.map((p) => p.id);
      assert.deepEqual(await firstTwo(), [10n, 20n]);
      await other.createPlant(owner, { id: 15n, name: 'plant 15', tag: null });
      assert.deepEqual(await firstTwo(), [10n, 15n]);
      await other.deletePlant(owner, 10n);
      assert.deepEqual(await firstTwo(), [15n, 20n]);
    });

    test('listPlants and streamPlants with a tag give only plants with exactly that tag, in id order', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      const tags = ['desert', 'Desert', null, 'desert', 'desert ', 'desert'];
      await Promise.all(tags.map((tag, i) => store.createPlant(owner, { id: BigInt(i + 1), name: `plant ${i + 1}`, tag })));
      await store.createPlant(uniqueName(), { id: 9n, name: 'another owner', tag: 'desert' });
      const page = await listPage(store, owner, { after: 1n, tag: 'desert', limit: 1 });
      assert.deepEqual(page.plants, [{ id: 4n, name: 'plant 4', tag: 'desert' }]);
      assert.equal(page.hasMore, true);
      const stream = await store.streamPlants(owner, { after: undefined, tag: 'desert', limit: 2 });
      assert.equal(stream.nextAfter, 4n);
      assert.deepEqual((await drain(stream)).map((plant) => plant.id), [1n, 4n]);
    });

    test('getPlant gives the owner’s plant, and nothing for another owner or an absent id', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      await store.createPlant(owner, { id: -9223372036854775808n, name: 'lowest', tag: 'x' });
      assert.deepEqual(await store.getPlant(owner, -9223372036854775808n), { id: -9223372036854775808n, name: 'lowest', tag: 'x' });
      assert.equal(await store.getPlant(uniqueName(), -9223372036854775808n), undefined);
      assert.equal(await store.getPlant(owner, 1n), undefined);
    });

    test('every read and delete checks a token handed to it: 401 for one revoked or unknown, and nothing changes', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      const issued = await issueToken(store, { user: owner });
      assert.ok(issued !== undefined);
      const valid = { digest: digestToken(issued.token) };
      const fern = { id: 1n, name: 'Fern', tag: null };
      const page = { after: undefined, tag: undefined, limit: 10 };
      assert.equal((await store.createPlant(owner, fern)).outcome, 'created');
      assert.deepEqual((await listPage(store, owner, page, valid)).plants, [fern]);
      assert.deepEqual(await store.getPlant(owner, 1n, valid), fern);
      assert.equal(await store.revokeToken(issued.record.id, new Date()), true);
      const isInvalidToken = (error: unknown) => error instanceof ApiError && error.status === 401;
      for (const token of [valid, { digest: digestToken('pst_never_issued') }]) {
        await assert.rejects(async () => store.deletePlant(owner, 1n, token), isInvalidToken);
        await assert.rejects(async () => listPage(store, owner, page, token), isInvalidToken);
        await assert.rejects(async () => store.getPlant(owner, 1n, token), isInvalidToken);
        await assert.rejects(async () => drain(await store.streamPlants(owner, { after: undefined, tag: undefined, limit: undefined }, token)), isInvalidToken);
      }
      assert.deepEqual((await listPage(store, owner, page)).plants, [fern], 'nothing deleted');
    });

    test('streamPlants reads one snapshot: later creates and deletes do not show, even chunks later', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      const ids = Array.from({ length: 2500 }, (_, i) => BigInt(i + 1));
      await Promise.all(ids.map((id) => store.createPlant(owner, { id, name: `plant ${id}`, tag: null })));
      const stream = await store.streamPlants(owner, { after: undefined, tag: undefined, limit: undefined });
      assert.deepEqual((await stream.next(2)).map((plant) => plant.id), [1n, 2n]);
      await store.deletePlant(owner, 2400n);
      await store.createPlant(owner, { id: 3000n, name: 'late', tag: null });
      const rest = await drain(stream, 700);
      assert.deepEqual(rest.map((plant) => plant.id), ids.slice(2));
    });

    test('streamPlants with limit gives nextAfter only when a plant follows', async (t) => {
      const store = await factory.open(t);
      const owner = uniqueName();
      await seed(store, owner, [-3n, 1n, 2n, 3n]);
      const cut = await store.streamPlants(owner, { after: -3n, tag: undefined, limit: 2 });
      assert.equal(cut.nextAfter, 2n);
      assert.deepEqual((await drain(cut)).map((plant) => plant.id), [1n, 2n]);
      const exact = await store.streamPlants(owner, { after: undefined, tag: undefined, limit: 4 });
      assert.equal(exact.nextAfter, undefined);
      assert.equal((await drain(exact, 3)).length, 4);
    });

    test('streams closed early give their connection back', async (t) => {
      const store = await factory.open(t, { poolSize: 2 });
      const owner = uniqueName();
      await seed(store, owner, [1n, 2n, 3n]);
      for (let i = 0; i < 6; i++) {
        const stream = await store.streamPlants(owner, { after: undefined, tag: undefined, limit: undefined });
        assert.equal((await stream.next(1)).length, 1);
        await stream.close();
        await stream.close();
      }
      assert.equal((await listPage(store, owner, { after: undefined, tag: undefined, limit: 10 })).plants.length, 3);
    });
  });
}
