/**
 * `plantstore serve --workers 2`: two processes on one port, a dead worker replaced, and
 * SIGTERM draining in-flight requests before the exit with status 0. On both stores.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { runCli, startServerProcess, type ServerProcess } from '../helpers/process.js';
import { authorizedFetch, postgresUrlOrSkipReason, tempDir, uniqueName, type StoreKind } from '../helpers/server.js';

const postgres = postgresUrlOrSkipReason();

function listeningPids(instance: ServerProcess): Set<number> {
  const pids = new Set<number>();
  for (const match of instance.stdout().matchAll(/"pid":(\d+)[^\n]*"msg":"plantstore is listening"/g)) pids.add(Number(match[1]));
  return pids;
}

async function until(condition: () => boolean, what: string, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startCluster(t: TestContext, kind: StoreKind) {
  const databaseUrl = kind === 'postgres' ? (postgres.url as string) : `sqlite:${join(tempDir(t), 'plantstore.db')}`;
  const instance = await startServerProcess(t, { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' }, ['--workers', '2']);
  await until(() => listeningPids(instance).size === 2, 'two workers to listen');
  const created = await runCli(['token', 'create', '--user', uniqueName()], { DATABASE_URL: databaseUrl });
  assert.equal(created.code, 0, created.stderr);
  const token = created.stdout.trim();
  return { instance, request: (path: string, init?: RequestInit & { json?: unknown }) => authorizedFetch(instance.url + path, token, init), token };
}

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`serve --workers 2 on ${kind}`, { skip: kind === 'postgres' ? postgres.reason : undefined }, () => {
    test('two workers serve one port, and a worker that dies is replaced', async (t) => {
      const { instance, request } = await startCluster(t, kind);
      assert.equal((await request('/plants', { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 200);
      const [victim] = listeningPids(instance);
      process.kill(victim as number, 'SIGKILL');
      await until(() => listeningPids(instance).size === 3, 'a replacement worker');
      for (let i = 0; i < 6; i++) assert.deepEqual(await (await request('/plants')).json(), [{ name: 'Fern' }]);
      assert.equal(instance.child.exitCode, null);
    });

    test('SIGTERM lets an in-flight request finish, then every worker stops and the exit status is 0', async (t) => {
      const { instance, token } = await startCluster(t, kind);
      const { port } = new URL(instance.url);
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const body = JSON.stringify({ id: 5, name: 'Slow fern' });
      socket.write(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      instance.child.kill('SIGTERM');
      await until(() => /draining in-flight requests[\s\S]*draining in-flight requests/.test(instance.stdout()), 'both workers to start draining');
      socket.write(body.slice(5));
      await until(() => answer.includes('\r\n\r\n'), 'the in-flight answer');
      assert.match(answer, /^HTTP\/1\.1 200 /);
      socket.end();
      const [code] = await instance.exited;
      assert.equal(code, 0);
    });
  });
}
