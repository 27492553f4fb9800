import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertMatchesOpenApi } from '../helpers/openapi-check.js';
import { startTestServer } from '../helpers/server.js';

describe('rate limiting', () => {
  test('is off unless configured, and then no RateLimit headers are sent', async (t) => {
    const server = await startTestServer(t);
    const alice = await server.user();
    for (let i = 0; i < 30; i++) {
      const response = await alice.request('/plants?limit=1');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('ratelimit'), null);
    }
  });

  test('RATE_LIMIT=3/1m gives each owner 3 requests, then 429 with Retry-After and an Error body', async (t) => {
    const server = await startTestServer(t, 'sqlite', { rateLimit: '3/1m' });
    const alice = await server.user();
    const bob = await server.user();
    for (let remaining = 2; remaining >= 0; remaining--) {
      const response = await alice.request('/plants');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('ratelimit') ?? '', new RegExp(`^"owner";r=${remaining};t=(59|60)$`));
      await assertMatchesOpenApi(response, 'GET', '/plants');
    }
    const limited = await alice.request('/plants', { method: 'POST', json: { id: 1, name: 'Fern' } });
    assert.equal(limited.status, 429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 59 && retryAfter <= 60, `Retry-After ${retryAfter}: the rest of the one-minute window`);
    assert.equal(limited.headers.get('ratelimit-policy'), '"owner";q=3;w=60');
    assert.equal(limited.headers.get('ratelimit'), `"owner";r=0;t=${retryAfter}`);
    assert.equal(limited.headers.get('content-type'), 'application/json');
    assert.deepEqual(await assertMatchesOpenApi(limited, 'POST', '/plants'), { error: 429, message: 'Too many requests for this owner; wait before trying again.' });
    assert.equal((await bob.request('/plants')).status, 200, 'another owner is not limited');
    assert.equal((await alice.request('/healthz')).status, 200, 'public routes are not limited');
  });

  test('each answer of a limited route carries RateLimit-Policy and RateLimit with what is left', async (t) => {
    const server = await startTestServer(t, 'sqlite', { rateLimit: '5/1h' });
    const alice = await server.user();
    const seen: string[] = [];
    const created = await alice.request('/plants', { method: 'POST', json: { id: 1, name: 'Fern' } });
    const requests = [created, await alice.request('/plants/1'), await alice.request('/plants?limit=10'), await alice.request('/plants/2'), await alice.request('/plants/1', { method: 'DELETE' })];
    for (const response of requests) {
      assert.equal(response.headers.get('ratelimit-policy'), '"owner";q=5;w=3600');
      const match = /^"owner";r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '');
      assert.ok(match !== null, `RateLimit: ${response.headers.get('ratelimit')}`);
      assert.ok(Number(match[2]) > 3590 && Number(match[2]) <= 3600);
      seen.push(match[1] as string);
      await response.arrayBuffer();
    }
    assert.deepEqual(seen, ['4', '3', '2', '1', '0']);
    assert.deepEqual(
      requests.map((response) => response.status),
      [200, 200, 200, 404, 204],
    );
  });
});
