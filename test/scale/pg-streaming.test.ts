/**
 * GET /plants without limit on PostgreSQL: streamed from one snapshot in keyset chunks, so
 * the server's memory stays flat, and a client that goes away gives its connection back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import pg from 'pg';
import { startServerProcess, runCli } from '../helpers/process.js';
import { authorizedFetch, postgresUrlOrSkipReason, uniqueName } from '../helpers/server.js';

const postgres = postgresUrlOrSkipReason();
const PLANTS = Number(process.env.STREAM_TEST_PLANTS ?? 200_000);
const MAX_GROWTH_BYTES = 64 * 1024 * 1024;

function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1]) * 1024;
}

/** Runs SQL on the test database directly, to seed many plants at once and clean them up. */
async function onDatabase(url: string, text: string, values: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

async function userWithPlants(t: import('node:test').TestContext, url: string, count: number): Promise<{ owner: string; token: string }> {
  const owner = uniqueName('collector');
  const created = await runCli(['token', 'create', '--user', owner], { DATABASE_URL: url });
  assert.equal(created.code, 0, created.stderr);
  await onDatabase(
    url,
    `INSERT INTO plants (owner, id, name, tag)
     SELECT $1, i - 100000, 'plant number ' || i || ' with a longish name', CASE WHEN i % 2 = 1 THEN 'tagged' END
     FROM generate_series(0, $2::integer - 1) AS i`,
    [owner, count],
  );
  t.after(() => onDatabase(url, 'DELETE FROM plants WHERE owner = $1', [owner]));
  return { owner, token: created.stdout.trim() };
}

describe('GET /plants without limit streams on postgres', { skip: postgres.reason ?? (process.platform !== 'linux' && 'reads /proc for peak memory') }, () => {
  test(`${PLANTS} plants arrive complete and in order while the server's peak memory stays flat`, async (t) => {
    const url = postgres.url as string;
    const { token } = await userWithPlants(t, url, PLANTS);
    const server = await startServerProcess(t, { DATABASE_URL: url, BOOTSTRAP_TOKEN: 'false' });
    const pid = server.child.pid as number;
    const idle = peakRss(pid);
    const response = await authorizedFetch(`${server.url}/plants`, token);
    assert.equal(response.status, 200);
    const plants = (await response.json()) as { name: string; tag?: string }[];
    const growth = peakRss(pid) - idle;
    assert.equal(plants.length, PLANTS);
    assert.deepEqual(plants[0], { name: 'plant number 0 with a longish name' });
    assert.deepEqual(plants[PLANTS - 1], { name: `plant number ${PLANTS - 1} with a longish name`, tag: 'tagged' });
    assert.ok(growth < MAX_GROWTH_BYTES, `peak RSS grew by ${Math.round(growth / 1048576)} MB`);
    t.diagnostic(`peak RSS growth ${Math.round(growth / 1048576)} MB`);
  });

  test('a client that goes away mid-stream gives the connection back (pool of two, one for streams)', async (t) => {
    const url = postgres.url as string;
    const { token } = await userWithPlants(t, url, 20_000);
    const server = await startServerProcess(t, { DATABASE_URL: url, BOOTSTRAP_TOKEN: 'false', DATABASE_POOL_SIZE: '2' });
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = request(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } }, (response) => {
          response.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => undefined);
        req.on('close', () => resolve());
        req.end();
        setTimeout(() => reject(new Error('no data')), 10_000).unref();
      });
    }
    const after = await authorizedFetch(`${server.url}/plants?limit=2`, token);
    assert.equal(after.status, 200);
    assert.equal(((await after.json()) as unknown[]).length, 2);
  });
});
