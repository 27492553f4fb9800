/** /metrics shows the PostgreSQL connection pool, so an operator can size DATABASE_POOL_SIZE. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { Metrics } from '../../src/http/metrics.js';
import { startServer } from '../../src/server.js';
import { loadSettings } from '../../src/settings.js';
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

  test('a start made again with the same metrics (as while the database was down) shows the new pool', async () => {
    // One Metrics per process: prom-client's default collectors cannot be stopped.
    const metrics = new Metrics();
    const logger = pino({ level: 'silent' });
    const settings = (poolSize: string) => loadSettings({}, { port: '0', databaseUrl: process.env.TEST_DATABASE_URL as string, bootstrapToken: 'false', databasePoolSize: poolSize });
    const first = await startServer(settings('3'), { logger, metrics });
    await fetch(`${first.url}/healthz`);
    await first.close();
    const second = await startServer(settings('5'), { logger, metrics });
    try {
      await fetch(`${second.url}/healthz`);
      const text = await (await fetch(`${second.url}/metrics`)).text();
      assert.match(text, /^plantstore_db_pool_connections\{state="max"\} 5$/m);
      assert.match(text, /^plantstore_http_requests_total\{route="\/healthz",method="GET",status="200"\} 2$/m, 'one count across both starts');
    } finally {
      await second.close();
    }
  });
});
