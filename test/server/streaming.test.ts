import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../helpers/server.js';
import { runCli, startServerProcess } from '../helpers/process.js';

const PLANTS = Number(process.env.STREAM_TEST_PLANTS ?? 200_000);
const MAX_GROWTH_BYTES = 64 * 1024 * 1024;

function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1]) * 1024;
}

/** GETs a URL reading the body slowly, so the server has to respect backpressure. */
function slowGet(url: string, token: string): Promise<{ firstByteMs: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      let firstByteMs = -1;
      const parts: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - started;
        parts.push(chunk);
        if (parts.length % 50 === 0) {
          response.pause();
          setTimeout(() => response.resume(), 5);
        }
      });
      response.on('end', () => resolve({ firstByteMs, body: Buffer.concat(parts).toString() }));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('GET /plants without limit streams', { skip: process.platform !== 'linux' && 'reads /proc for peak memory' }, () => {
  test(`${PLANTS} plants arrive complete and in order while the server's peak memory stays flat`, async (t) => {
    const path = join(tempDir(t), 'many.db');
    const databaseUrl = `sqlite:${path}`;
    await runCli(['migrate', '--database-url', databaseUrl]);
    const token = (await runCli(['token', 'create', '--user', 'collector', '--database-url', databaseUrl])).stdout.trim();
    const db = new Database(path);
    const insert = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < PLANTS; i++) insert.run('collector', BigInt(i) - 100_000n, `plant number ${i} with a longish name`, i % 2 ? 'tagged' : null);
    })();
    db.close();

    const server = await startServerProcess(t, { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' });
    const pid = server.child.pid as number;
    const idle = peakRss(pid);
    const { firstByteMs, body } = await slowGet(`${server.url}/plants`, token);
    const growth = peakRss(pid) - idle;

    const plants = JSON.parse(body) as { name: string; tag?: string }[];
    assert.equal(plants.length, PLANTS);
    assert.deepEqual(plants[0], { name: 'plant number 0 with a longish name' });
    assert.deepEqual(plants[PLANTS - 1], { name: `plant number ${PLANTS - 1} with a longish name`, tag: 'tagged' });
    const outOfPlace = plants.findIndex((plant, i) => plant.name !== `plant number ${i} with a longish name` || plant.tag !== (i % 2 ? 'tagged' : undefined));
    assert.equal(outOfPlace, -1, `plant ${outOfPlace} is out of place: ${JSON.stringify(plants[outOfPlace])}`);
    assert.ok(growth < MAX_GROWTH_BYTES, `peak RSS grew by ${Math.round(growth / 1048576)} MB`);
    t.diagnostic(`peak RSS growth ${Math.round(growth / 1048576)} MB, first byte after ${Math.round(firstByteMs)} ms, ${body.length} bytes`);
  });
});
