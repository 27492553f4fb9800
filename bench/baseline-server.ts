/**
 * The baseline: what plain node:http does on this machine with the same three routes and
 * response shapes, plants in a Map per token, no framework, no durability. It is the
 * ceiling every plantstore figure is divided by.
 *
 * Usage: node build/bench/baseline-server.js <port>   (tokens in BENCH_TOKENS, comma-separated)
 * Prints `listening <port>` on stdout once it accepts connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Plant {
  name: string;
  tag?: string;
}

const plantsByToken = new Map<string, Map<number, Plant>>();
for (const token of (process.env.BENCH_TOKENS ?? '').split(',')) {
  if (token !== '') plantsByToken.set(token, new Map());
}

function send(res: ServerResponse, status: number, body?: string, location?: string): void {
  res.statusCode = status;
  if (location !== undefined) res.setHeader('location', location);
  if (body === undefined) {
    res.end();
    return;
  }
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

function fail(res: ServerResponse, status: number, message: string): void {
  send(res, status, JSON.stringify({ error: status, message }));
}

function plantsOf(req: IncomingMessage): Map<number, Plant> | undefined {
  const header = req.headers.authorization;
  return header?.startsWith('Bearer ') === true ? plantsByToken.get(header.slice(7)) : undefined;
}

function create(req: IncomingMessage, res: ServerResponse, plants: Map<number, Plant>): void {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (text += chunk));
  req.on('end', () => {
    let body: { id?: unknown; name?: unknown; tag?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return fail(res, 400, 'The request body is not valid JSON.');
    }
    const { id, name, tag } = body;
    if (!Number.isInteger(id) || typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) {
      return fail(res, 400, 'The plant is not valid.');
    }
    const plant: Plant = tag === undefined ? { name } : { name, tag };
    const stored = plants.get(id as number);
    if (stored !== undefined && (stored.name !== plant.name || stored.tag !== plant.tag)) {
      return fail(res, 409, 'A different plant with this id exists.');
    }
    if (stored === undefined) plants.set(id as number, plant);
    send(res, 200, JSON.stringify(plant), `/plants/${String(id)}`);
  });
}

/** Plants in insertion order: the bench inserts each user's ids in ascending order, so this is id order. */
function list(res: ServerResponse, plants: Map<number, Plant>, query: string): void {
  const raw = new URLSearchParams(query).get('limit');
  const limit = raw === null ? Infinity : Number(raw);
  const page: Plant[] = [];
  for (const plant of plants.values()) {
    if (page.length >= limit) break;
    page.push(plant);
  }
  send(res, 200, JSON.stringify(page));
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const isCollection = path === '/plants';
  const isItem = path.startsWith('/plants/');
  if (!isCollection && !isItem) return fail(res, 404, 'No such path.');
  const plants = plantsOf(req);
  if (plants === undefined) return fail(res, 401, 'A valid bearer token is required.');
  if (isCollection && req.method === 'GET') return list(res, plants, q === -1 ? '' : url.slice(q + 1));
  if (isCollection && req.method === 'POST') return create(req, res, plants);
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
