/**
 * The in-memory baseline: what plain node:http does on this machine with the same routes and
 * response shapes, each token's plants in id order in memory (a page after an id by binary
 * search, a Link header when more follow), no framework, no durability. It is the ceiling
 * every plantstore figure is divided by.
 *
 * Usage: node build/bench/baseline-server.js <port>
 *   BENCH_TOKENS     comma-separated tokens it accepts, each with its own plants
 *   BENCH_MANY_FILE  optional: a many-owner file (seeded-plants.ts) whose plants it starts with
 * Prints `listening <port>` on stdout once it accepts connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { plantOf, readManyFile } from './seeded-plants.js';
import { SortedPlants, type Plant } from './sorted-plants.js';
import { bearerToken, fail, listQuery, readJson, send, sendPage } from './baseline-http.js';

const plantsByToken = new Map<string, SortedPlants>();
for (const token of (process.env.BENCH_TOKENS ?? '').split(',')) {
  if (token !== '') plantsByToken.set(token, new SortedPlants());
}
if (process.env.BENCH_MANY_FILE !== undefined) {
  for (const { token, ids } of readManyFile(process.env.BENCH_MANY_FILE)) {
    const plants = new SortedPlants();
    for (const id of ids) {
      const { name, tag } = plantOf(id);
      plants.add(id, tag === null ? { name } : { name, tag });
    }
    plantsByToken.set(token, plants);
  }
}

async function create(req: IncomingMessage, res: ServerResponse, plants: SortedPlants): Promise<void> {
  const body = await readJson(req, res);
  if (body === undefined) return;
  const plant: Plant = body.tag === null ? { name: body.name } : { name: body.name, tag: body.tag };
  const stored = plants.get(body.id);
  if (stored !== undefined && (stored.name !== plant.name || stored.tag !== plant.tag)) {
    return fail(res, 409, 'A different plant with this id exists.');
  }
  plants.add(body.id, plant);
  send(res, 200, JSON.stringify(stored ?? plant), `/plants/${String(body.id)}`);
}

function list(res: ServerResponse, plants: SortedPlants, query: string): void {
  const { after, limit } = listQuery(query);
  if (Number.isNaN(after) || Number.isNaN(limit)) return fail(res, 400, 'Bad limit or after.');
  const page = plants.page(after, limit ?? Infinity);
  sendPage(res, JSON.stringify(page.plants), limit, page.more ? page.ids.at(-1) : undefined);
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const isCollection = path === '/plants';
  const isItem = path.startsWith('/plants/');
  if (!isCollection && !isItem) return fail(res, 404, 'No such path.');
  const token = bearerToken(req);
  const plants = token === undefined ? undefined : plantsByToken.get(token);
  if (plants === undefined) return fail(res, 401, 'A valid bearer token is required.');
  if (isCollection && req.method === 'GET') return list(res, plants, q === -1 ? '' : url.slice(q + 1));
  if (isCollection && req.method === 'POST') return void create(req, res, plants);
  if (isItem && req.method === 'DELETE') {
    const id = Number(path.slice('/plants/'.length));
    return plants.delete(id) ? send(res, 204) : fail(res, 404, 'No such plant.');
  }
  fail(res, 405, 'Method not allowed.');
});

server.keepAliveTimeout = 5_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
