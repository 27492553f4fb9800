/**
 * The benchmark's baselines answer the requests of its scenarios exactly as plantstore does
 * (same status, body and Link header), so that a ratio compares the same work. The node+pg
 * baseline runs on plantstore's own tables and must see plantstore's writes and vice versa.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { plantOf, spreadIds, writeManyFile } from '../../bench/seeded-plants.js';
import { defaultPoolSize, startBaseline, startPgBaseline, type RunningServer } from '../../bench/servers.js';
import { authorizedFetch, postgresUrlOrSkipReason, startTestServer, tempDir, uniqueName } from '../helpers/server.js';

interface Answer {
  status: number;
  body: string;
  link: string | null;
}

async function answer(url: string, token: string, init: RequestInit & { json?: unknown } = {}): Promise<Answer> {
  const response = await authorizedFetch(url, token, init);
  return { status: response.status, body: await response.text(), link: response.headers.get('link') };
}

function seededBody(id: number): string {
  const plant = plantOf(id);
  return JSON.stringify(plant.tag === null ? { id, name: plant.name } : { id, ...plant });
}

/** The seeded ids, a few ids between and around them, and none: every kind of `after`. */
function afters(ids: readonly number[]): (number | undefined)[] {
  const sorted = [...ids].sort((a, b) => a - b);
  return [undefined, ...sorted.slice(0, 5), ...sorted.slice(-5), (sorted.at(-1) as number) + 1, (sorted[0] as number) - 1, 0, sorted[20] as number];
}

async function compareLists(t: TestContext, ps: { url: string; token: string }, base: { url: string; token: string }, ids: readonly number[]): Promise<void> {
  for (const after of afters(ids)) {
    for (const limit of [10, 1, 0]) {
      const query = `/plants?limit=${limit}${after === undefined ? '' : `&after=${after}`}`;
      await t.test(query, async () => {
        assert.deepEqual(await answer(base.url + query, base.token), await answer(ps.url + query, ps.token));
      });
    }
  }
}

async function compareWrites(ps: { url: string; token: string }, base: { url: string; token: string }): Promise<void> {
  const steps: [string, RequestInit & { json?: unknown }][] = [
    ['/plants', { method: 'POST', json: '{"id":1000001,"name":"bench plant 1","tag":"bench"}' }],
    ['/plants', { method: 'POST', json: '{"id":1000001,"name":"bench plant 1","tag":"bench"}' }],
    ['/plants', { method: 'POST', json: '{"id":1000001,"name":"another name","tag":"bench"}' }],
    ['/plants', { method: 'POST', json: '{"id":1000002,"name":"no tag"}' }],
    ['/plants/1000001', { method: 'DELETE' }],
    ['/plants/1000001', { method: 'DELETE' }],
  ];
  for (const [path, init] of steps) {
    const [mine, theirs] = [await answer(base.url + path, base.token, init), await answer(ps.url + path, ps.token, init)];
    // An error's message is the baseline's own; its status must match, and a success's body.
    assert.equal(mine.status, theirs.status, `${init.method} ${path} ${String(init.json ?? '')}`);
    if (mine.status < 300) assert.equal(mine.body, theirs.body, `${init.method} ${path} ${String(init.json ?? '')}`);
  }
}

describe('the in-memory baseline', () => {
  test('lists, creates and deletes as plantstore does', async (t) => {
    const server = await startTestServer(t);
    const user = await server.user();
    const ids = spreadIds(60);
    for (const id of ids) assert.equal((await user.request('/plants', { method: 'POST', json: seededBody(id) })).status, 200);
    const manyFile = join(tempDir(t), 'many.txt');
    writeManyFile(manyFile, [{ token: 'base-token', ids }]);
    const baseline = await startBaseline(['other-token'], manyFile);
    t.after(() => baseline.stop());

    await compareLists(t, { url: server.url, token: user.token }, { url: baseline.origin, token: 'base-token' }, ids);
    await compareWrites({ url: server.url, token: user.token }, { url: baseline.origin, token: 'base-token' });
    assert.equal((await answer(`${baseline.origin}/plants?limit=1`, 'unknown')).status, 401);
    assert.deepEqual(await answer(`${baseline.origin}/plants?limit=5`, 'other-token'), { status: 200, body: '[]', link: null });
  });
});

const postgres = postgresUrlOrSkipReason();

describe('the node+pg baseline', { skip: postgres.reason }, () => {
  test("works on plantstore's tables and answers as plantstore does", async (t) => {
    const server = await startTestServer(t, 'postgres');
    const user = await server.user();
    const ids = spreadIds(60);
    for (const id of ids) assert.equal((await user.request('/plants', { method: 'POST', json: seededBody(id) })).status, 200);
    const owners = new Map([
      ['pg-token', user.name],
      ['pg-writer', uniqueName()],
    ]);
    let baseline: RunningServer | undefined = await startPgBaseline(postgres.url as string, owners, defaultPoolSize());
    t.after(() => baseline?.stop());

    await compareLists(t, { url: server.url, token: user.token }, { url: baseline.origin, token: 'pg-token' }, ids);
    const writer = await server.user();
    await compareWrites({ url: server.url, token: writer.token }, { url: baseline.origin, token: 'pg-writer' });
    // The same rows: what one creates the other lists, and what one deletes the other no longer has.
    const created = await answer(`${baseline.origin}/plants`, 'pg-token', { method: 'POST', json: '{"id":77,"name":"from node+pg"}' });
    assert.equal(created.status, 200);
    assert.equal((await answer(`${server.url}/plants?limit=1&after=76`, user.token)).body, '[{"name":"from node+pg"}]');
    assert.equal((await answer(`${baseline.origin}/plants/77`, 'pg-token', { method: 'DELETE' })).status, 204);
    assert.equal((await user.request('/plants/77', { method: 'DELETE' })).status, 404);
    await baseline.stop();
    baseline = undefined;
  });
});
