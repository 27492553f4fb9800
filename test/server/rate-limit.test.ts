import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertMatchesOpenApi } from '../helpers/openapi-check.js';
import { startTestServer } from '../helpers/server.js';

describe('rate limiting', () => {
  test('is off unless configured', async (t) => {
    const server = await startTestServer(t);
    const alice = await server.user();
    for (let i = 0; i < 30; i++) assert.equal((await alice.request('/plants?limit=1')).status, 200);
  });

  test('RATE_LIMIT=3/1m gives each owner 3 requests, then 429 with Retry-After and an Error body', async (t) => {
    const server = await startTestServer(t, 'sqlite', { rateLimit: '3/1m' });
    const alice = await server.user();
    const bob = await server.user();
    for (let i = 0; i < 3; i++) assert.equal((await alice.request('/plants')).status, 200);
    const limited = await alice.request('/plants', { method: 'POST', json: { id: 1, name: 'Fern' } });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '20');
    assert.equal(limited.headers.get('content-type'), 'application/json');
    assert.deepEqual(await assertMatchesOpenApi(limited, 'POST', '/plants'), { error: 429, message: 'Too many requests for this owner; wait before trying again.' });
    assert.equal((await bob.request('/plants')).status, 200, 'another owner is not limited');
    assert.equal((await alice.request('/healthz')).status, 200, 'public routes are not limited');
  });
});
