/**
 * The node+pg baseline: the best a bare Node process does on the same PostgreSQL table with
 * the same routes and responses. One pg.Pool, named (prepared) statements, one statement per
 * request (two for a create that meets an existing id), tokens in a Map (no query to check
 * them), every write committed with synchronous_commit as the URL sets it.
 *
 * Usage: node build/bench/pg-baseline-server.js <port>
 *   BENCH_DATABASE_URL  postgres://… (its search_path holding plantstore's `plants` table)
 *   BENCH_OWNERS        comma-separated token=owner pairs
 *   BENCH_POOL_SIZE     connections in the pool (plantstore's default when run by run.ts)
 * Prints `listening <port>` on stdout once it accepts connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { bearerToken, fail, listQuery, readJson, send, sendPage } from './baseline-http.js';

const owners = new Map<string, string>();
for (const pair of (process.env.BENCH_OWNERS ?? '').split(',')) {
  const at = pair.indexOf('=');
  if (at > 0) owners.set(pair.slice(0, at), pair.slice(at + 1));
}

const pool = new pg.Pool({
  connectionString: process.env.BENCH_DATABASE_URL,
  max: Number(process.env.BENCH_POOL_SIZE ?? 10),
  application_name: 'plantstore-bench-node-pg',
});
pool.on('error', (error) => process.stderr.write(`idle connection lost: ${error.message}\n`));

const statements = {
  insert: 'INSERT INTO plants (owner, id, name, tag) VALUES ($1, $2, $3, $4) ON CONFLICT (owner, id) DO NOTHING',
  select: 'SELECT name, tag FROM plants WHERE owner = $1 AND id = $2',
  delete: 'DELETE FROM plants WHERE owner = $1 AND id = $2',
  list: 'SELECT id, name, tag FROM plants WHERE owner = $1 ORDER BY id LIMIT $2',
  listAfter: 'SELECT id, name, tag FROM plants WHERE owner = $1 AND id > $2 ORDER BY id LIMIT $3',
};
type StatementName = keyof typeof statements;

function query(name: StatementName, values: unknown[]): Promise<pg.QueryResult> {
  return pool.query({ name: `bench_${name}`, text: statements[name], values });
}

interface Row {
  id?: string;
  name: string;
  tag: string | null;
}

const plantJson = (row: { name: string; tag: string | null }) => (row.tag === null ? JSON.stringify({ name: row.name }) : JSON.stringify({ name: row.name, tag: row.tag }));

async function create(req: IncomingMessage, res: ServerResponse, owner: string): Promise<void> {
  const body = await readJson(req, res);
  if (body === undefined) return;
  const inserted = await query('insert', [owner, body.id, body.name, body.tag]);
  const location = `/plants/${body.id}`;
  if (inserted.rowCount === 1) return send(res, 200, plantJson(body), location);
  const stored = (await query('select', [owner, body.id])).rows[0] as Row | undefined;
  if (stored === undefined) return fail(res, 409, 'The plant was deleted meanwhile.');
  if (stored.name !== body.name || stored.tag !== body.tag) return fail(res, 409, 'A different plant with this id exists.');
  send(res, 200, plantJson(stored), location);
}

async function list(res: ServerResponse, owner: string, queryText: string): Promise<void> {
  const { after, limit } = listQuery(queryText);
  if (Number.isNaN(after) || Number.isNaN(limit)) return fail(res, 400, 'Bad limit or after.');
  // One row more than asked tells whether a next page exists; NULL is no limit in PostgreSQL.
  const fetch = limit === undefined ? null : limit + 1;
  const { rows } = after === undefined ? await query('list', [owner, fetch]) : await query('listAfter', [owner, after, fetch]);
  const more = limit !== undefined && rows.length > limit;
  const page = (more ? rows.slice(0, limit) : rows) as Row[];
  sendPage(res, `[${page.map(plantJson).join(',')}]`, limit, more ? page.at(-1)?.id : undefined);
}

async function remove(res: ServerResponse, owner: string, id: number): Promise<void> {
  const deleted = await query('delete', [owner, id]);
  return deleted.rowCount === 1 ? send(res, 204) : fail(res, 404, 'No such plant.');
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const isCollection = path === '/plants';
  const isItem = path.startsWith('/plants/');
  if (!isCollection && !isItem) return fail(res, 404, 'No such path.');
  const token = bearerToken(req);
  const owner = token === undefined ? undefined : owners.get(token);
  if (owner === undefined) return fail(res, 401, 'A valid bearer token is required.');
  if (isCollection && req.method === 'GET') return list(res, owner, q === -1 ? '' : url.slice(q + 1));
  if (isCollection && req.method === 'POST') return create(req, res, owner);
  if (isItem && req.method === 'DELETE') {
    const id = Number(path.slice('/plants/'.length));
    if (!Number.isSafeInteger(id)) return fail(res, 400, 'Bad id.');
    return remove(res, owner, id);
  }
  fail(res, 405, 'Method not allowed.');
}

const server = createServer((req, res) => {
  route(req, res).catch((error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    if (!res.headersSent) fail(res, 503, 'The database did not answer.');
  });
});

server.keepAliveTimeout = 5_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
});
