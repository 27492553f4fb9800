import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PlantStoreClient, type NewPlant } from '../../src/client/index.js';
import type { InputItem } from '../../src/cli/plant-input.js';
import { importPlants } from '../../src/cli/plants-import.js';
import { startTestServer } from '../helpers/server.js';

async function* items(plants: NewPlant[]): AsyncGenerator<InputItem> {
  let line = 1;
  for (const plant of plants) yield { line: ++line, plant };
}

describe('importPlants', () => {
  test('tells created, unchanged and conflicts apart when the lookup pages do not reach (GET /plants/{id} for the rest)', async (t) => {
    const server = await startTestServer(t);
    const user = await server.user();
    const requests: string[] = [];
    const client = new PlantStoreClient({
      baseUrl: server.url,
      token: user.token,
      fetch: (url, init) => {
        requests.push(`${init.method} ${new URL(url).pathname}`);
        return fetch(url, init);
      },
    });
    for (let id = 1n; id < 40n; id += 2n) await client.createPlant({ id, name: `odd ${id}` });
    const input: NewPlant[] = [];
    for (let id = 2n; id <= 40n; id += 2n) input.push({ id, name: `even ${id}` });
    input.push({ id: 3n, name: 'odd 3' }, { id: 5n, name: 'not odd 5' });
    requests.length = 0;

    const summary = await importPlants(client, items(input), { lookupPageSize: 2, batchSize: 100, concurrency: 4 });
    assert.deepEqual(summary, { created: 20, unchanged: 1, conflicts: [{ line: 23, id: 5n }], refused: [] });
    assert.equal(requests.filter((r) => r === 'GET /plants').length, 3, 'three lookup pages');
    assert.ok(requests.some((r) => r.startsWith('GET /plants/')), 'then single lookups');
    assert.equal(requests.filter((r) => r === 'POST /plants').length, 20);
    const page = await client.listPlants();
    assert.equal(page.plants.length, 40);
    assert.equal(page.plants.find((p) => p.id === 5n)?.name, 'odd 5');
  });

  test('a plant over the body limit (413) is a refused line, and the import goes on', async (t) => {
    const server = await startTestServer(t, 'sqlite', { bodyLimit: '100' });
    const user = await server.user();
    const client = new PlantStoreClient({ baseUrl: server.url, token: user.token });
    const input: NewPlant[] = [{ id: 1n, name: 'small' }, { id: 2n, name: 'x'.repeat(200) }, { id: 3n, name: 'small too' }];
    const summary = await importPlants(client, items(input), { lookupPageSize: 10, batchSize: 10, concurrency: 1 });
    assert.equal(summary.created, 2);
    assert.deepEqual(summary.refused.map((refusal) => refusal.line), [3]);
    assert.match(summary.refused[0]?.reason ?? '', /100 bytes/);
  });

  test('a plant the service refuses as invalid (400) is a refused line, and the import goes on', async (t) => {
    const server = await startTestServer(t);
    const user = await server.user();
    const client = new PlantStoreClient({ baseUrl: server.url, token: user.token });
    const summary = await importPlants(client, items([{ id: 1n, name: 'a' }, { id: 2n, name: '' }, { id: 3n, name: 'c' }]), { concurrency: 1 });
    assert.equal(summary.created, 2);
    assert.deepEqual(summary.refused.map((refusal) => refusal.line), [3]);
  });

  test('a refusal of the whole import stops it: no create is sent after it', async (t) => {
    const server = await startTestServer(t);
    const user = await server.user();
    const posted: string[] = [];
    const client = new PlantStoreClient({
      baseUrl: server.url,
      token: user.token,
      fetch: (url, init) => {
        if (init.method !== 'POST') return fetch(url, init);
        const body = String(init.body);
        posted.push(body);
        // The service stops taking this token halfway through the batch.
        return body.includes('"b"') ? Promise.resolve(new Response('{"error":401,"message":"The bearer token is unknown."}', { status: 401, headers: { 'content-type': 'application/json' } })) : fetch(url, init);
      },
    });
    await assert.rejects(
      importPlants(client, items([{ id: 1n, name: 'a' }, { id: 2n, name: 'b' }, { id: 3n, name: 'c' }, { id: 4n, name: 'd' }]), { concurrency: 1 }),
      (error: Error) => error.name === 'ImportStoppedError' && (error as Error & { line: number }).line === 3,
    );
    assert.equal(posted.length, 2, 'nothing created after the refusal');
    assert.equal((await client.listPlants()).plants.length, 1);
  });

  test('a repeated id waits for the next batch: the first creates, an identical repeat is unchanged, another is a conflict', async (t) => {
    const server = await startTestServer(t);
    const user = await server.user();
    const client = new PlantStoreClient({ baseUrl: server.url, token: user.token });
    const summary = await importPlants(
      client,
      items([
        { id: 1n, name: 'a' },
        { id: 1n, name: 'a' },
        { id: 2n, name: 'b' },
        { id: 1n, name: 'a', tag: 't' },
      ]),
      { concurrency: 8 },
    );
    assert.deepEqual(summary, { created: 2, unchanged: 1, conflicts: [{ line: 5, id: 1n }], refused: [] });
  });

  test('progress is reported for every plant', async (t) => {
    const server = await startTestServer(t);
    const user = await server.user();
    const client = new PlantStoreClient({ baseUrl: server.url, token: user.token });
    const seen: number[] = [];
    const plants = Array.from({ length: 5 }, (_, i) => ({ id: BigInt(i), name: `p${i}` }));
    await importPlants(client, items(plants), { batchSize: 2, onProgress: (s) => seen.push(s.created + s.unchanged) });
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
  });

  test('a refused line counts as progress too', async (t) => {
    const server = await startTestServer(t);
    const user = await server.user();
    const client = new PlantStoreClient({ baseUrl: server.url, token: user.token });
    const seen: number[] = [];
    async function* input(): AsyncGenerator<InputItem> {
      yield { line: 2, plant: { id: 1n, name: 'a' } };
      yield { line: 3, refused: 'not JSON.' };
      yield { line: 4, refused: 'not JSON.' };
    }
    const summary = await importPlants(client, input(), { onProgress: (s) => seen.push(s.created + s.unchanged + s.conflicts.length + s.refused.length) });
    assert.equal(summary.refused.length, 2);
    assert.deepEqual(seen, [1, 2, 3]);
  });

  test('conflicts and refused lines are listed in line order, whatever order they were found in', async (t) => {
    const server = await startTestServer(t, 'sqlite', { bodyLimit: '100' });
    const user = await server.user();
    const client = new PlantStoreClient({ baseUrl: server.url, token: user.token });
    for (const id of [1n, 2n, 3n, 9n]) await client.createPlant({ id, name: 'kept' });
    async function* input(): AsyncGenerator<InputItem> {
      yield { line: 2, plant: { id: 9n, name: 'other' } }; // past the lookup: a conflict found by GET /plants/9, later
      yield { line: 3, plant: { id: 1n, name: 'other' } }; // in the lookup: a conflict found at once
      yield { line: 4, plant: { id: 10n, name: 'x'.repeat(200) } }; // refused by the service (413), once the batch runs
      yield { line: 5, refused: 'not JSON.' }; // refused as it is read, before the batch runs
    }
    const summary = await importPlants(client, input(), { lookupPageSize: 1, concurrency: 2 });
    assert.deepEqual(summary.conflicts, [{ line: 2, id: 9n }, { line: 3, id: 1n }]);
    assert.deepEqual(summary.refused.map((r) => r.line), [4, 5]);
  });
});
