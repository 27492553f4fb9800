/** /metrics shows the PostgreSQL connection pool, so an operator can size DATABASE_POOL_SIZE. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { postgresUrlOrSkipReason, startTestServer } from '../helpers/server.js';

const postgres = postgresUrlOrSkipReason();

describe('pool figures on /metrics', { skip: postgres.reason }, () => {
  test('GET /metrics on postgres shows busy, idle and max connections and waiting queries', async (t) => {
    const server = await startTestServer(t, 'postgres', { databasePoolSize: '7' });
    const text = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(text, /^plantstore_db_pool_connections\{state="max"\} 7$/m);
    assert.match(text, /^plantstore_db_pool_connections\{state="idle"\} \d+$/m);
    assert.match(text, /^plantstore_db_pool_connections\{state="busy"\} \d+$/m);
    assert.match(text, /^plantstore_db_pool_waiting 0$/m);
  });
});
