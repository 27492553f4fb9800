/**
 * Power loss, not just kill -9: plantstore runs on SQLite over lazyfs, which forgets whatever
 * was not fsynced when its power is cut. Clients create, delete and list at once; then the
 * filesystem and plantstore's process group die in the same instant, and after a restart every
 * acknowledged write must be there and nothing a read had shown may be lost.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LazyFs, lazyFsSkip } from '../helpers/lazyfs.js';
import { PlantTraffic, plantIds, type Ledger } from '../helpers/plant-traffic.js';
import { runCli, startServerProcess, type ServerProcess } from '../helpers/process.js';
import { authorizedFetch } from '../helpers/server.js';

const skip = await lazyFsSkip();

const ROUNDS = 4;
/** A slow disk's fsync: long enough that a cut often lands while one is under way. */
const SYNC_DELAY_MS = 20;

async function listIds(url: string, token: string): Promise<Set<number>> {
  const response = await authorizedFetch(`${url}/plants`, token);
  assert.equal(response.status, 200);
  return plantIds((await response.json()) as { name: string }[]);
}

/** What the stored plants break of the ledger's promises, as lines; none when all hold. */
function brokenPromises(ledger: Ledger, before: Set<number>, after: Set<number>): string[] {
  const list = (ids: Iterable<number>) => [...ids].slice(0, 10).join(', ');
  const check = (ids: number[], what: string) => (ids.length > 0 ? [`${ids.length} ${what}: ${list(ids)}`] : []);
  const kept = (id: number) => after.has(id);
  return [
    ...check([...ledger.created].filter((id) => !kept(id) && !ledger.deletesTried.has(id)), 'plants answered 200 are missing'),
    ...check([...ledger.deleted].filter(kept), 'plants answered 204 are back'),
    ...check(
      [...ledger.shown].filter((id) => !kept(id) && !ledger.deletesTried.has(id)),
      'plants a GET had listed are lost (a read showed a write before it was durable)',
    ),
    ...check(
      [...ledger.shownDeleted].filter(kept),
      'plants a GET had shown deleted are back (a read showed a delete before it was durable)',
    ),
    ...check([...after].filter((id) => !before.has(id) && !ledger.createsTried.has(id)), 'plants appeared that nobody created'),
  ];
}

describe('power loss', { skip }, () => {
  test('after a power cut every acknowledged write and everything a read showed is still there', { timeout: 90_000 }, async (t) => {
    const fs = await LazyFs.mount(t, { syncDelayMs: SYNC_DELAY_MS });
    const databaseUrl = `sqlite:${join(fs.mountpoint, 'plantstore.db')}`;
    const env = { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' };
    const created = await runCli(['token', 'create', '--user', 'keeper', '--database-url', databaseUrl]);
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();

    // Odd rounds run one process; even rounds two workers sharing the database (and its -shm).
    const start = async (round: number) => {
      const workers = round % 2 === 0 ? 2 : 1;
      const server = await startServerProcess(t, env, ['--workers', String(workers)], { detached: true });
      while ([...server.stdout().matchAll(/"msg":"plantstore is listening"/g)].length < workers) await sleep(20);
      return server;
    };
    let server: ServerProcess = await start(1);
    let stored = await listIds(server.url, token);
    const broken: string[] = [];
    let acknowledged = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const traffic = new PlantTraffic(server.url, token, stored, round * 1_000_000);
      traffic.start(4, 2);
      const startedAt = Date.now();
      await sleep(200 + Math.random() * 500);
      while (traffic.ledger.created.size < 10) {
        assert.ok(Date.now() - startedAt < 20_000, `only ${traffic.ledger.created.size} creates were answered in 20 s`);
        await sleep(10);
      }
      await Promise.race([traffic.unansweredWriteShown(), sleep(1000, undefined, { ref: false })]);
      const ranFor = Date.now() - startedAt;

      // The power cut: the filesystem and every plantstore process die in the same instant.
      traffic.halt();
      const cut = fs.powerCut();
      process.kill(-(server.child.pid as number), 'SIGKILL');
      await Promise.all([cut, server.exited, traffic.finished()]);

      const { ledger } = traffic;
      acknowledged += ledger.created.size + ledger.deleted.size;
      t.diagnostic(
        `round ${round}: cut after ${ranFor} ms; ${ledger.created.size}/${ledger.createsTried.size} creates and ` +
          `${ledger.deleted.size}/${ledger.deletesTried.size} deletes answered, ${ledger.gets} lists read`,
      );
      await fs.start();
      server = await start(round + 1);
      const after = await listIds(server.url, token);
      broken.push(...brokenPromises(ledger, stored, after).map((line) => `round ${round}: ${line}`));
      stored = after;
    }
    assert.ok(acknowledged > 0, 'the server acknowledged writes before the cuts');
    assert.deepEqual(broken, [], 'every promise survives the power cuts');
  });
});
