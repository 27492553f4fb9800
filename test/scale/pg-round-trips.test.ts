/**
 * On PostgreSQL a read or delete with a token seen before costs one round trip: the token's
 * revocation is checked by the same statement that reads or deletes the plants, counted on the
 * wire by a proxy in front of the database. A create confirms its token first, before it reads
 * the body (an unauthenticated request never has its body read): two round trips.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { startRoundTripCounter } from '../helpers/pg-round-trips.js';
import { postgresUrlOrSkipReason, startTestServer } from '../helpers/server.js';

const postgres = postgresUrlOrSkipReason();

describe('round trips per request on postgres', { skip: postgres.reason }, () => {
  test('list, get and delete take one round trip, a create two, a refused token one', async (t) => {
    const counter = await startRoundTripCounter(t, postgres.url as string);
    const server = await startTestServer(t, 'postgres', { databaseUrl: counter.url });
    const user = await server.user();
    // The first request looks the token up (and records its use); later ones need not.
    assert.equal((await user.request('/plants?limit=10')).status, 200);
    // That record of use is written in the background: wait for it, so it is not counted below.
    for (let waited = 0; ; waited += 50) {
      const token = (await server.running.store.listTokens()).find((record) => record.user === user.name);
      if (token?.lastUsedAt != null) break;
      assert.ok(waited < 10_000, 'the first use of the token was recorded');
      await sleep(50);
    }

    // A create that meets a stored plant reads it with a third statement to compare.
    const requests: [string, RequestInit & { json?: unknown }, number, number][] = [
      ['/plants', { method: 'POST', json: { id: 1, name: 'Fern', tag: 'green' } }, 200, 2],
      ['/plants', { method: 'POST', json: { id: 1, name: 'Fern', tag: 'green' } }, 200, 3],
      ['/plants', { method: 'POST', json: { id: 1, name: 'Moss' } }, 409, 3],
      ['/plants?limit=10', {}, 200, 1],
      ['/plants?limit=5&after=0&tag=green', {}, 200, 1],
      ['/plants/1', {}, 200, 1],
      ['/plants/2', {}, 404, 1],
      ['/plants/1', { method: 'DELETE' }, 204, 1],
      ['/plants/1', { method: 'DELETE' }, 404, 1],
    ];
    for (const [path, init, status, roundTrips] of requests) {
      counter.reset();
      const response = await user.request(path, init);
      await response.arrayBuffer();
      const what = `${init.method ?? 'GET'} ${path} ${JSON.stringify(init.json ?? '')}`;
      assert.equal(response.status, status, what);
      assert.equal(counter.count, roundTrips, `${what}: round trips`);
    }

    const [record] = (await server.running.store.listTokens()).filter((token) => token.user === user.name);
    assert.ok(record !== undefined);
    await server.running.store.revokeToken(record.id, new Date());
    const refused = [['/plants?limit=10', {}], ['/plants/1', {}], ['/plants/1', { method: 'DELETE' }], ['/plants', { method: 'POST', json: { id: 2, name: 'Moss' } }]] as const;
    for (const [path, init] of refused) {
      counter.reset();
      const response = await user.request(path, init);
      assert.equal(response.status, 401, `${path} after revocation`);
      assert.equal(counter.count, 1, `${path} after revocation: ${counter.count} round trips`);
    }
  });
});
