import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PlantStoreClient, PlantStoreError, type Plant } from 'plantstore/client';
import { startTestServer } from '../helpers/server.js';

const EXTREMES = [2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n - 1n), -(2n ** 63n), 0n];

async function clientFor(t: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer(t);
  const user = await server.user();
  return { server, user, client: new PlantStoreClient({ baseUrl: server.url, token: user.token }) };
}

async function collect(iterable: AsyncIterable<Plant>): Promise<Plant[]> {
  const out: Plant[] = [];
  for await (const plant of iterable) out.push(plant);
  return out;
}

describe('PlantStoreClient against a live server', () => {
  test('ids 2^53+1 and ±(2^63−1) round-trip exactly through create, get, list and delete', async (t) => {
    const { client, user } = await clientFor(t);
    for (const id of EXTREMES) {
      assert.deepEqual(await client.createPlant({ id, name: `plant ${id}` }), { id, name: `plant ${id}` });
    }
    for (const id of EXTREMES) assert.deepEqual(await client.getPlant(id), { id, name: `plant ${id}` });
    const sorted = [...EXTREMES].sort((a, b) => (a < b ? -1 : 1));
    const { plants, nextAfter } = await client.listPlants();
    assert.deepEqual(plants.map((p) => p.id), sorted);
    assert.equal(nextAfter, undefined);
    // The request carried the exact literal: the server (read with a raw fetch) holds the same text.
    const raw = await (await user.request(`/plants/${2n ** 53n + 1n}?fields=id`)).text();
    assert.equal(raw, '{"id":9007199254740993}');
    for (const id of EXTREMES) await client.deletePlant(id);
    assert.deepEqual((await client.listPlants()).plants, []);
  });

  test('createPlant keeps the tag; a repeat is safe; a different body is a 409 PlantStoreError', async (t) => {
    const { client } = await clientFor(t);
    const plant = { id: 7n, name: 'Monstera, "big"', tag: 'aroid' };
    assert.deepEqual(await client.createPlant(plant), plant);
    assert.deepEqual(await client.createPlant(plant), plant);
    await assert.rejects(client.createPlant({ id: 7n, name: 'Other' }), (error: unknown) => {
      assert.ok(error instanceof PlantStoreError);
      assert.equal(error.status, 409);
      assert.match(error.message, /already exists/);
      return true;
    });
    assert.deepEqual(await client.getPlant(7n), plant);
  });

  test('a refused create throws the Error body: status 400 and its message', async (t) => {
    const { client } = await clientFor(t);
    await assert.rejects(client.createPlant({ id: 1n, name: '   ' }), { name: 'PlantStoreError', status: 400, message: '"name" must not be only whitespace.' });
  });

  test('getPlant and deletePlant of an absent id throw 404', async (t) => {
    const { client } = await clientFor(t);
    await assert.rejects(client.getPlant(404n), { status: 404 });
    await assert.rejects(client.deletePlant(404n), { status: 404 });
  });

  test('a bad token throws 401; a read-only token cannot create (403)', async (t) => {
    const { server } = await clientFor(t);
    const bad = new PlantStoreClient({ baseUrl: server.url, token: 'pst_nope' });
    await assert.rejects(bad.listPlants(), { status: 401 });
    const reader = await server.user({ readOnly: true });
    const readOnly = new PlantStoreClient({ baseUrl: server.url, token: reader.token });
    await assert.rejects(readOnly.createPlant({ id: 1n, name: 'x' }), { status: 403 });
  });

  test('listPlants gives one page and the cursor of the next; plants() walks them all, with a tag filter', async (t) => {
    const { client } = await clientFor(t);
    for (let i = 1n; i <= 7n; i++) await client.createPlant({ id: i * 10n, name: `p${i}`, tag: i % 2n === 0n ? 'even' : 'odd' });
    const first = await client.listPlants({ limit: 3 });
    assert.deepEqual(first.plants.map((p) => p.id), [10n, 20n, 30n]);
    assert.equal(first.nextAfter, 30n);
    const second = await client.listPlants({ limit: 3, after: first.nextAfter });
    assert.deepEqual(second.plants.map((p) => p.id), [40n, 50n, 60n]);
    const last = await client.listPlants({ limit: 3, after: second.nextAfter });
    assert.deepEqual(last, { plants: [{ id: 70n, name: 'p7', tag: 'odd' }], nextAfter: undefined });

    assert.deepEqual((await collect(client.plants({ pageSize: 2 }))).map((p) => p.id), [10n, 20n, 30n, 40n, 50n, 60n, 70n]);
    assert.deepEqual((await collect(client.plants({ after: 30n, pageSize: 2 }))).map((p) => p.id), [40n, 50n, 60n, 70n]);
    const evens = await collect(client.plants({ tag: 'even', pageSize: 2 }));
    assert.deepEqual(evens, [
      { id: 20n, name: 'p2', tag: 'even' },
      { id: 40n, name: 'p4', tag: 'even' },
      { id: 60n, name: 'p6', tag: 'even' },
    ]);
    assert.deepEqual((await client.listPlants({ tag: 'odd', limit: 1 })).nextAfter, 10n);
  });

  test('a base URL with a trailing slash works the same', async (t) => {
    const { server, user } = await clientFor(t);
    const client = new PlantStoreClient({ baseUrl: `${server.url}/`, token: user.token });
    await client.createPlant({ id: 1n, name: 'a' });
    assert.deepEqual((await client.listPlants()).plants, [{ id: 1n, name: 'a' }]);
  });
});

describe('PlantStoreClient arguments', () => {
  const client = new PlantStoreClient({ baseUrl: 'http://127.0.0.1:9', token: 'pst_x', fetch: () => assert.fail('no request expected') });

  test('an id that is not a bigint, or outside int64, is refused before any request', async () => {
    await assert.rejects(client.getPlant(7 as unknown as bigint), TypeError);
    await assert.rejects(client.deletePlant(2n ** 63n), RangeError);
    await assert.rejects(client.createPlant({ id: -(2n ** 63n) - 1n, name: 'x' }), RangeError);
  });

  test('a tag filter with a lone surrogate is refused, not sent as U+FFFD (another, valid filter)', async () => {
    await assert.rejects(client.listPlants({ tag: 'a\uD800' }), (error: Error) => error instanceof RangeError && /tag/.test(error.message));
    await assert.rejects(client.plants({ tag: '\uDC00' }).next(), RangeError);
  });

  test('a base URL that is not absolute http(s) or carries a password, or an empty token, is refused', () => {
    assert.throws(() => new PlantStoreClient({ baseUrl: 'localhost:8080', token: 't' }), TypeError);
    assert.throws(
      () => new PlantStoreClient({ baseUrl: 'http://u:hunter2@h/', token: 't' }),
      (error: Error) => error instanceof TypeError && /user name or password/.test(error.message) && !error.message.includes('hunter2'),
    );
    assert.throws(() => new PlantStoreClient({ baseUrl: 'ftp://h/', token: 't' }), TypeError);
    assert.throws(() => new PlantStoreClient({ baseUrl: 'http://h/', token: '' }), TypeError);
  });
});
