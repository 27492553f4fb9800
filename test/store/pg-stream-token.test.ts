/** A streamed list refused for its token on PostgreSQL gives its connection back to the pool. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { digestToken, issueToken } from '../../src/auth/api-tokens.js';
import { ApiError } from '../../src/errors.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { storeFactories } from './store-factories.js';

const postgres = storeFactories().find((factory) => factory.kind === 'postgres');
if (postgres === undefined) throw new Error('no postgres store factory');

describe('streams refused for their token on postgres', { skip: postgres.skip }, () => {
  test('the connection is rolled back and reused, not closed', async (t) => {
    const store = (await postgres.open(t, { poolSize: 2 })) as PostgresStore;
    const issued = await issueToken(store, { user: 'ana' });
    assert.ok(issued !== undefined);
    await store.revokeToken(issued.record.id, new Date());
    const revoked = { digest: digestToken(issued.token) };
    const query = { after: undefined, tag: undefined, limit: undefined };
    for (let i = 0; i < 3; i++) {
      await assert.rejects(async () => store.streamPlants('ana', query, revoked), (error: unknown) => error instanceof ApiError && error.status === 401);
    }
    const { total, idle } = store.poolStats;
    assert.equal(total, idle, 'nothing is still held');
    assert.equal(total, 1, 'one connection served all three refusals: none was closed and replaced');
    const stream = await store.streamPlants('ana', query);
    assert.deepEqual(await stream.next(10), [], 'the reused connection is in no transaction of the refused streams');
    await stream.close();
  });
});
