// @ts-check
/**
 * plantstore/client in a few lines: create three plants with 64-bit ids, page through them,
 * delete them. Run after `npm run build`:
 *
 *   PLANTSTORE_URL=http://127.0.0.1:8080 PLANTSTORE_TOKEN=pst_… node examples/client.mjs
 */
import { PlantStoreClient, PlantStoreError } from 'plantstore/client';

const token = process.env.PLANTSTORE_TOKEN;
if (token === undefined || token === '') {
  console.error('Set PLANTSTORE_TOKEN to a token from `plantstore token create --user <name>`.');
  process.exit(2);
}
const client = new PlantStoreClient({ baseUrl: process.env.PLANTSTORE_URL ?? 'http://127.0.0.1:8080', token });

// Beyond 2^53 a JavaScript number would round these; bigint keeps them exact end to end.
const plants = [
  { id: -9223372036854775807n, name: 'Welwitschia', tag: 'example' },
  { id: 9007199254740995n, name: 'Monstera deliciosa', tag: 'example' },
  { id: 9223372036854775807n, name: 'Dragon tree, "Dracaena"', tag: 'example' },
];

try {
  for (const plant of plants) {
    const stored = await client.createPlant(plant);
    console.log(`created ${stored.id} ${stored.name}`);
  }

  // One page at a time: each page says where the next one starts.
  let page = await client.listPlants({ limit: 2, tag: 'example' });
  for (let number = 1; ; number++) {
    console.log(`page ${number}: ${page.plants.map((plant) => plant.id).join(', ')}`);
    if (page.nextAfter === undefined) break;
    page = await client.listPlants({ limit: 2, after: page.nextAfter, tag: 'example' });
  }

  // Or let the client follow the pages.
  for await (const plant of client.plants({ tag: 'example' })) {
    await client.deletePlant(plant.id);
    console.log(`deleted ${plant.id}`);
  }
} catch (error) {
  if (!(error instanceof PlantStoreError)) throw error;
  console.error(`plantstore refused: ${error.status} ${error.message}`);
  process.exitCode = 1;
}
