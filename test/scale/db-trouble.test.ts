/**
 * Database trouble on PostgreSQL: an instance whose database goes away answers 503 with an
 * Error body within bounded time, stays up, and serves again by itself once the database is back.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { issueToken } from '../../src/auth/api-tokens.js';
import { openStore } from '../../src/store/open-store.js';
import { startServerProcess, type ServerProcess } from '../helpers/process.js';
import { authorizedFetch, postgresUrlOrSkipReason, uniqueName } from '../helpers/server.js';
import { databaseAddress, startTcpProxy, throughProxy } from './tcp-proxy.js';

const postgres = postgresUrlOrSkipReason();
/** Connect timeout plus read timeout, with room for a loaded machine. */
const BOUND_MS = 10_000;

async function timed(request: Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = Date.now();
  const response = await request;
  return { response, ms: Date.now() - started };
}

async function assertUnavailable(request: Promise<Response>): Promise<void> {
  const { response, ms } = await timed(request);
  assert.equal(response.status, 503, `expected 503, got ${response.status}`);
  assert.ok(ms < BOUND_MS, `answered after ${ms} ms`);
  assert.match(response.headers.get('content-type') ?? '', /application\/json/);
  const body = (await response.json()) as { error: number; message: string };
  assert.equal(body.error, 503);
  assert.equal(typeof body.message, 'string');
}

async function waitUntilReady(instance: ServerProcess, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const response = await fetch(`${instance.url}/readyz`);
    if (response.status === 200) return;
    assert.ok(Date.now() < deadline, 'the instance did not become ready again');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('database trouble on postgres', { skip: postgres.reason }, () => {
  for (const mode of ['refuse', 'blackhole'] as const) {
    test(`with the database ${mode === 'refuse' ? 'refusing connections' : 'silent'}: 503s in bounded time, then it heals by itself`, async (t) => {
      const databaseUrl = postgres.url as string;
      const proxy = await startTcpProxy(t, databaseAddress(databaseUrl));
      const instance = await startServerProcess(t, { DATABASE_URL: throughProxy(databaseUrl, proxy), BOOTSTRAP_TOKEN: 'false' });
      const store = await openStore({ databaseUrl, databasePoolSize: 1 });
      t.after(() => store.close());
      const owner = uniqueName();
      const issued = await issueToken(store, { user: owner });
      const token = issued?.token as string;
      const plants = (init?: RequestInit & { json?: unknown }) => authorizedFetch(`${instance.url}/plants`, token, init);
      assert.equal((await plants({ method: 'POST', json: { id: 1, name: 'Fern' } })).status, 200);

      proxy.setMode(mode);
      await assertUnavailable(fetch(`${instance.url}/readyz`));
      await assertUnavailable(plants());
      await assertUnavailable(plants({ method: 'POST', json: { id: 2, name: 'Moss' } }));
      assert.equal((await fetch(`${instance.url}/healthz`)).status, 200);
      assert.equal(instance.child.exitCode, null, 'the process must stay up');

      proxy.setMode('open');
      await waitUntilReady(instance, 15_000);
      const listed = await plants();
      assert.equal(listed.status, 200);
      assert.deepEqual(await listed.json(), [{ name: 'Fern' }]);
      assert.equal((await plants({ method: 'POST', json: { id: 2, name: 'Moss' } })).status, 200);
      assert.doesNotMatch(instance.stdout(), /"level":60/, 'no fatal log line');
      for (const line of instance.stdout().split('\n').filter((l) => l.includes('a database connection broke'))) {
        assert.ok(line.length < 400, `a short line, not the pg client's dump: ${line.slice(0, 200)}…`);
      }
    });
  }

  test('an instance started while the database is unreachable waits for it and then serves', async (t) => {
    const databaseUrl = postgres.url as string;
    const proxy = await startTcpProxy(t, databaseAddress(databaseUrl));
    proxy.setMode('refuse');
    const starting = startServerProcess(t, { DATABASE_URL: throughProxy(databaseUrl, proxy), BOOTSTRAP_TOKEN: 'false' });
    // A second refused connection means the first attempt failed and its retry line was logged.
    const deadline = Date.now() + 15_000;
    while (proxy.refused < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    proxy.setMode('open');
    const instance = await starting;
    assert.match(instance.stdout(), /the database does not answer; retrying the start/);
    assert.equal((await fetch(`${instance.url}/readyz`)).status, 200);
  });
});
