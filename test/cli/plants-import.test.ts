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
});
