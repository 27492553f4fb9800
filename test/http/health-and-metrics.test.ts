/** /healthz, /readyz and /metrics: no token needed, and what each answers. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StoreUnavailableError } from '../../src/errors.js';
import { startTestServer, storeKinds } from '../helpers/server.js';

/** The value of one sample line in Prometheus text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.lastIndexOf('}'));
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`))) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return undefined;
}

for (const kind of storeKinds()) {
  describe(`GET /healthz on ${kind}`, () => {
    test('200 {"status":"ok"} while the process runs, no token needed', async (t) => {
      const server = await startTestServer(t, kind);
      const response = await fetch(`${server.url}/healthz`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await response.json(), { status: 'ok' });
    });
  });

  describe(`GET /readyz on ${kind}`, () => {
    test('200 when the database answers, no token needed', async (t) => {
      const server = await startTestServer(t, kind);
      const response = await fetch(`${server.url}/readyz`);
      assert.equal(response.status, 200);
      await response.body?.cancel();
    });

    test('503 Error when the database does not answer', async (t) => {
      const server = await startTestServer(t, kind);
      server.running.store.ping = async () => {
        throw new StoreUnavailableError('connect ECONNREFUSED');
      };
      const response = await fetch(`${server.url}/readyz`);
      assert.equal(response.status, 503);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const body = (await response.json()) as Record<string, unknown>;
      assert.deepEqual(body, { error: 503, message: 'The database does not answer.' });
    });

    test('503 Error when the database does not answer within 2 s, saying so', async (t) => {
      const server = await startTestServer(t, kind);
      server.running.store.ping = () => new Promise(() => {});
      const response = await fetch(`${server.url}/readyz`);
      assert.equal(response.status, 503);
      assert.deepEqual(await response.json(), { error: 503, message: 'The database did not answer in time.' });
    });
  });

  describe(`GET /metrics on ${kind}`, () => {
    test('Prometheus text with requests by route, method and status, no token needed', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      await user.request('/plants');
      await user.request('/plants');
      await user.request('/plants/1', { method: 'DELETE' });
      await fetch(`${server.url}/plants`);
      await fetch(`${server.url}/no/such/path/${Date.now()}`);
      const response = await fetch(`${server.url}/metrics`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
      const text = await response.text();
      const requests = 'plantstore_http_requests_total';
      assert.equal(sample(text, requests, { route: '/plants', method: 'GET', status: '200' }), 2);
      assert.equal(sample(text, requests, { route: '/plants', method: 'GET', status: '401' }), 1);
      assert.equal(sample(text, requests, { route: '/plants/{id}', method: 'DELETE', status: '404' }), 1);
      assert.doesNotMatch(text, /no\/such\/path/, 'unknown paths do not become labels');
    });

    test('a latency histogram by route and method', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      await (await user.request('/plants')).text(); // the whole answer, so the request is complete and counted
      const text = await (await fetch(`${server.url}/metrics`)).text();
      assert.match(text, /# TYPE plantstore_http_request_duration_seconds histogram/);
      assert.equal(sample(text, 'plantstore_http_request_duration_seconds_count', { route: '/plants', method: 'GET' }), 1);
      assert.equal(sample(text, 'plantstore_http_request_duration_seconds_bucket', { route: '/plants', method: 'GET', le: '+Inf' }), 1);
    });

    test('database figures', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const creates = [1, 2, 3].map((id) => user.request('/plants', { method: 'POST', json: { id, name: 'Fern' } }));
      for (const response of await Promise.all(creates)) assert.equal(response.status, 200);
      const text = await (await fetch(`${server.url}/metrics`)).text();
      // The creates went through group-commit batches, on either store.
      assert.match(text, /^plantstore_db_write_batch_size_count [1-9]/m);
      assert.match(text, /^plantstore_db_write_batch_duration_seconds_count [1-9]/m);
      if (kind === 'postgres') {
        assert.match(text, /^plantstore_db_write_batch_size_sum 3$/m, 'the three creates; other writes are not grouped there');
        assert.equal(sample(text, 'plantstore_db_pool_connections', { state: 'max' }), server.settings.databasePoolSize);
        assert.ok((sample(text, 'plantstore_db_pool_connections', { state: 'idle' }) ?? 0) >= 1, 'the pool holds a connection');
      }
    });
  });
}
