import assert from 'node:assert/strict';
import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { authorizedFetch, tempDir } from '../helpers/server.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';

async function listIds(url: string, token: string): Promise<Set<string>> {
  const response = await authorizedFetch(`${url}/plants`, token);
  const plants = (await response.json()) as { name: string }[];
  return new Set(plants.map((plant) => plant.name));
}

describe('durability', () => {
  test('every 200 and 204 answered before kill -9 survives the restart', async (t) => {
    const databaseUrl = `sqlite:${join(tempDir(t), 'durable.db')}`;
    const token = (await runCli(['token', 'create', '--user', 'keeper', '--database-url', databaseUrl])).stdout.trim();
    const env = { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' };
    const server = await startServerProcess(t, env);

    for (let id = 0; id < 20; id++) {
      await authorizedFetch(`${server.url}/plants`, token, { method: 'POST', json: { id, name: `old-${id}` } });
    }
    const deleted: string[] = [];
    const created: string[] = [];
    let killed = false;
    const kill = () => {
      if (!killed) server.child.kill('SIGKILL');
      killed = true;
    };
    // Fire creates and deletes at once, a delete after every ten creates, so that both are
    // among the first answered; kill -9 as soon as 60 of them were answered.
    const attempts = Array.from({ length: 200 }, (_, i) => async () => {
      const response = await authorizedFetch(`${server.url}/plants`, token, { method: 'POST', json: { id: 1000 + i, name: `new-${i}` } });
      if (response.status === 200) created.push(`new-${i}`);
    }).flatMap((create, i) => {
      if (i % 10 !== 0) return [create];
      const id = i / 10;
      const remove = async () => {
        const response = await authorizedFetch(`${server.url}/plants/${id}`, token, { method: 'DELETE' });
        if (response.status === 204) deleted.push(`old-${id}`);
      };
      return [remove, create];
    });
    let answered = 0;
    await Promise.all(
      attempts.map((attempt) =>
        attempt()
          .catch(() => undefined)
          .finally(() => {
            if (++answered >= 60) kill();
          }),
      ),
    );
    const [, signal] = await server.exited;
    assert.equal(signal, 'SIGKILL');
    assert.ok(created.length > 0, 'some creates were answered before the kill');
    assert.ok(deleted.length > 0, 'some deletes were answered before the kill');

    const restarted = await startServerProcess(t, env);
    const stored = await listIds(restarted.url, token);
    for (const name of created) assert.ok(stored.has(name), `${name} was answered 200 and must survive`);
    for (const name of deleted) assert.ok(!stored.has(name), `${name} was answered 204 and must stay deleted`);
  });

  for (const removed of ['-wal', '']) {
    const file = removed === '' ? 'the database file' : 'its -wal file';
    test(`with ${file} removed while serving, writes and /readyz answer 503 and nothing acknowledged is lost`, async (t) => {
      const path = join(tempDir(t), 'removed.db');
      const databaseUrl = `sqlite:${path}`;
      const token = (await runCli(['token', 'create', '--user', 'keeper', '--database-url', databaseUrl])).stdout.trim();
      const env = { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' };
      const server = await startServerProcess(t, env);
      for (let id = 1; id <= 5; id++) {
        assert.equal((await authorizedFetch(`${server.url}/plants`, token, { method: 'POST', json: { id, name: `kept-${id}` } })).status, 200);
      }
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      const saved = `${path}.saved`;
      if (removed === '') renameSync(path, saved); // an operator's mv, which leaves the file to put back
      else rmSync(`${path}-wal`);

      const create = await authorizedFetch(`${server.url}/plants`, token, { method: 'POST', json: { id: 6, name: 'refused' } });
      assert.equal(create.status, 503);
      assert.equal((await authorizedFetch(`${server.url}/plants/1`, token, { method: 'DELETE' })).status, 503);
      assert.equal((await fetch(`${server.url}/readyz`)).status, 503);
      const reason = new RegExp(`removed\\.db${removed} was removed or replaced while plantstore had it open`);
      await until(() => reason.test(server.stdout()), 'the log line that names the removed file');

      server.child.kill('SIGTERM');
      assert.equal((await server.exited)[0], 0);
      if (removed === '') renameSync(saved, path);
      const restarted = await startServerProcess(t, env);
      assert.deepEqual([...(await listIds(restarted.url, token))].sort(), ['kept-1', 'kept-2', 'kept-3', 'kept-4', 'kept-5']);
    });

    test(`with ${file} replaced by a copy while serving, writes and /readyz answer 503`, async (t) => {
      const path = join(tempDir(t), 'replaced.db');
      const databaseUrl = `sqlite:${path}`;
      const token = (await runCli(['token', 'create', '--user', 'keeper', '--database-url', databaseUrl])).stdout.trim();
      const server = await startServerProcess(t, { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' });
      assert.equal((await authorizedFetch(`${server.url}/plants`, token, { method: 'POST', json: { id: 1, name: 'kept' } })).status, 200);
      // Another file at the same path, as a restore or a sync tool would leave it.
      const target = `${path}${removed}`;
      copyFileSync(target, `${target}.copy`);
      renameSync(`${target}.copy`, target);
      assert.equal((await authorizedFetch(`${server.url}/plants`, token, { method: 'POST', json: { id: 2, name: 'refused' } })).status, 503);
      assert.equal((await fetch(`${server.url}/readyz`)).status, 503);
      await until(() => new RegExp(`replaced\\.db${removed} was removed or replaced`).test(server.stdout()), 'the log line that names the replaced file');
    });
  }
});
