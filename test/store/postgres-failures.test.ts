/**
 * How the PostgreSQL store fails: an unreachable database is "unavailable" (503) within a
 * bounded time, and a value PostgreSQL cannot hold is the request's fault (400), never a 500.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { ApiError, StoreUnavailableError } from '../../src/errors.js';
import { CONNECT_TIMEOUT_MS } from '../../src/store/postgres/pool.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { postgresUrlOrSkipReason } from '../helpers/server.js';
import { ALL_FIELDS } from '../helpers/page.js';
import { storeFactories } from './store-factories.js';

const postgres = postgresUrlOrSkipReason();
const factory = storeFactories().find((candidate) => candidate.kind === 'postgres');

/** A port on which nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('PostgreSQL store failures', { skip: postgres.reason }, () => {
  test('an unreachable database makes every call throw StoreUnavailableError, quickly', async () => {
    const store = new PostgresStore({ url: `postgres://root@127.0.0.1:${await closedPort()}/test`, size: 2 });
    try {
      const started = Date.now();
      await assert.rejects(async () => store.ping(), StoreUnavailableError);
      await assert.rejects(async () => store.listPlants('someone', { after: undefined, tag: undefined, limit: 10, fields: ALL_FIELDS }), StoreUnavailableError);
      await assert.rejects(async () => store.streamPlants('someone', { after: undefined, tag: undefined, limit: undefined }), StoreUnavailableError);
      await assert.rejects(async () => store.createFirstToken({ id: 'tok_x', digest: '00'.repeat(32), user: 'u', scopes: [], createdAt: new Date(), expiresAt: null }), StoreUnavailableError);
      assert.ok(Date.now() - started < 10_000);
    } finally {
      await store.close();
    }
  });

  test('a database that accepts connections but never answers fails a call within the connect bound', async (t) => {
    const silent = createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    t.after(() => {
      silent.close();
    });
    const { port } = silent.address() as AddressInfo;
    const store = new PostgresStore({ url: `postgres://root@127.0.0.1:${port}/test`, size: 2 });
    try {
      const started = Date.now();
      await assert.rejects(async () => store.ping(), StoreUnavailableError);
      const ms = Date.now() - started;
      assert.ok(ms >= CONNECT_TIMEOUT_MS - 100 && ms < CONNECT_TIMEOUT_MS + 2000, `failed after ${ms} ms`);
    } finally {
      await store.close();
    }
  });

  test('an owner PostgreSQL cannot hold (a NUL character, an over-long name) is a 400, not a 500', async (t) => {
    const store = await factory?.open(t);
    assert.ok(store);
    const isBadRequest = (error: unknown) => error instanceof ApiError && error.status === 400;
    await assert.rejects(async () => store.createPlant('nul\u0000owner', { id: 1n, name: 'Fern', tag: null }), isBadRequest);
    await assert.rejects(async () => store.listPlants('nul\u0000owner', { after: undefined, tag: undefined, limit: 10, fields: ALL_FIELDS }), isBadRequest);
    const burst = await Promise.allSettled([
      store.createPlant('plain', { id: 1n, name: 'first alone', tag: null }),
      store.createPlant('nul\u0000owner', { id: 1n, name: 'Fern', tag: null }),
      store.createPlant('plain', { id: 2n, name: 'batched with a bad one', tag: null }),
    ]);
    assert.deepEqual(burst.map((settled) => settled.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.ok(burst[1]?.status === 'rejected' && isBadRequest(burst[1].reason));
    await assert.rejects(async () => store.createPlant(randomBytes(12_000).toString('hex'), { id: 1n, name: 'Fern', tag: null }), isBadRequest);
  });
});
