/**
 * `plantstore serve --workers 2`: two processes on one port, a dead worker replaced, SIGTERM
 * or SIGINT (to the supervisor or its whole process group) draining in-flight requests before
 * the exit with status 0, and /metrics summing every worker's figures. On both stores.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { CLI, runCli, startServerProcess, type ServerProcess } from '../helpers/process.js';
import { authorizedFetch, postgresUrlOrSkipReason, tempDir, uniqueName, type StoreKind } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const postgres = postgresUrlOrSkipReason();

function listeningPids(instance: ServerProcess): Set<number> {
  const pids = new Set<number>();
  for (const match of instance.stdout().matchAll(/"pid":(\d+)[^\n]*"msg":"plantstore is listening"/g)) pids.add(Number(match[1]));
  return pids;
}

async function startCluster(t: TestContext, kind: StoreKind, options: { detached?: boolean } = {}) {
  const databaseUrl = kind === 'postgres' ? (postgres.url as string) : `sqlite:${join(tempDir(t), 'plantstore.db')}`;
  const instance = await startServerProcess(t, { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' }, ['--workers', '2'], options);
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
      await drainsInFlight(instance, token, () => instance.child.kill('SIGTERM'));
    });
  });
}

/** A POST whose body is only half sent when `signal()` runs must still be answered 200; then the exit status is 0. */
async function drainsInFlight(instance: ServerProcess, token: string, signal: () => void): Promise<void> {
  const { port } = new URL(instance.url);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  const body = JSON.stringify({ id: 5, name: 'Slow fern' });
  // The worker's 100 Continue says it is reading the body: the request is in flight.
  const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
  socket.write(
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, 5)}`,
  );
  await until(() => answer.startsWith(CONTINUE), 'the worker to read the request');
  signal();
  await until(() => /draining in-flight requests[\s\S]*draining in-flight requests/.test(instance.stdout()), 'both workers to start draining');
  socket.write(body.slice(5));
  const final = () => answer.slice(CONTINUE.length);
  await until(() => final().includes('\r\n\r\n'), 'the in-flight answer');
  assert.match(final(), /^HTTP\/1\.1 200 /);
  socket.end();
  const [code, signalled] = await instance.exited;
  assert.deepEqual([code, signalled], [0, null]);
  assert.doesNotMatch(instance.stdout(), /worker died/);
}

/** One GET over a connection of its own, so that the cluster hands it to the next worker. */
async function getOnNewConnection(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { agent: false, headers: { connection: 'close' } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** The supervisor's worker processes now. */
function workerPids(instance: ServerProcess): Set<number> {
  const children = readFileSync(`/proc/${instance.child.pid}/task/${instance.child.pid}/children`, 'utf8');
  return new Set(children.split(' ').filter((pid) => pid !== '').map(Number));
}

/** Whether `pid` runs as a cluster worker: it has exec'd with the environment node:cluster gives it. */
function isClusterWorker(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').some((entry) => entry.startsWith('NODE_UNIQUE_ID='));
  } catch {
    return false;
  }
}

describe('serve --workers 2 and signals', () => {
  test('SIGTERM while the supervisor still migrates the database ends the start with status 0', async (t) => {
    const path = join(tempDir(t), 'p.db');
    const holder = new Database(path);
    holder.pragma('journal_mode = WAL');
    holder.exec('BEGIN IMMEDIATE'); // the migration waits for this write lock
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--workers', '2'], {
      env: { ...process.env, DATABASE_URL: `sqlite:${path}`, BOOTSTRAP_TOKEN: 'false' },
      stdio: 'ignore',
    });
    t.after(() => child.kill('SIGKILL'));
    const exited = once(child, 'exit');
    // The supervisor has the database open: it is migrating, and waits for the lock.
    const opened = () => readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
    await until(opened, 'the supervisor to open the database');
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    holder.exec('COMMIT');
    holder.close();
    assert.deepEqual(await exited, [0, null], 'exit status 0, not killed by the signal');
  });

  test('SIGTERM while a replacement worker is still starting: every worker stops, exit status 0', async (t) => {
    const { instance } = await startCluster(t, 'sqlite');
    const before = workerPids(instance);
    const [victim] = listeningPids(instance);
    process.kill(victim as number, 'SIGKILL');
    // Stopped as soon as it runs as a worker, the replacement cannot reach its signal handler or
    // listen while the supervisor handles SIGTERM; it gets the supervisor's SIGTERM once it goes
    // on. Not before its exec: the supervisor waits for that.
    let found: number | undefined;
    await until(() => (found = [...workerPids(instance)].find((pid) => !before.has(pid) && isClusterWorker(pid))) !== undefined, 'a replacement worker', 5_000, 1);
    const replacement = found as number;
    process.kill(replacement, 'SIGSTOP');
    let resumed = false;
    // A SIGTERM with no handler yet kills even a stopped process: then there is none to resume.
    const resume = () => {
      if (resumed) return;
      resumed = true;
      try {
        process.kill(replacement, 'SIGCONT');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    };
    t.after(resume);
    instance.child.kill('SIGTERM');
    await until(() => instance.stdout().includes('draining all workers'), 'the supervisor to stop its workers');
    resume();
    const [code, signalled] = await instance.exited;
    assert.deepEqual([code, signalled], [0, null]);
    assert.equal(listeningPids(instance).size, 2, 'the replacement was stopped before it listened');
  });

  test('a worker killed while draining is logged, and the supervisor exits 1', async (t) => {
    const { instance, token } = await startCluster(t, 'sqlite');
    const workers = [...listeningPids(instance)];
    const { port } = new URL(instance.url);
    // A request in flight keeps its worker draining; the other worker ends at once.
    const socket = connect(Number(port), '127.0.0.1');
    t.after(() => socket.destroy());
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.write(`POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 40\r\nExpect: 100-continue\r\n\r\n{"id"`);
    await until(() => answer.startsWith('HTTP/1.1 100 Continue'), 'a worker to read the request');
    instance.child.kill('SIGTERM');
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await until(() => workers.filter(alive).length === 1, 'the worker without a request to end');
    const draining = workers.find(alive) as number;
    process.kill(draining, 'SIGKILL');
    assert.deepEqual(await instance.exited, [1, null]);
    await until(() => instance.stdout().includes('worker died while draining'), 'the line that says why the exit status is 1');
    assert.match(instance.stdout(), new RegExp(`"worker":${draining},"code":null,"signal":"SIGKILL","msg":"worker died while draining"`));
  });

  test('a worker that does not stop after SIGTERM is killed, and the supervisor exits 1', { timeout: 60_000 }, async (t) => {
    const { instance } = await startCluster(t, 'sqlite');
    const [stopped] = [...listeningPids(instance)] as [number];
    process.kill(stopped, 'SIGSTOP');
    t.after(() => {
      try {
        process.kill(stopped, 'SIGCONT');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    });
    const signalledAt = Date.now();
    instance.child.kill('SIGTERM');
    assert.deepEqual(await instance.exited, [1, null]);
    assert.ok(Date.now() - signalledAt >= 19_000, 'the supervisor waited for the worker to drain first');
    assert.match(instance.stdout(), new RegExp(`"worker":${stopped},"timeoutMs":20000,"msg":"worker did not stop after SIGTERM; killing it"`));
  });

  test('SIGINT to the supervisor drains every worker and exits 0', async (t) => {
    const { instance, token } = await startCluster(t, 'sqlite');
    await drainsInFlight(instance, token, () => instance.child.kill('SIGINT'));
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} to the whole process group (as systemd and Ctrl-C send it) drains every worker and exits 0`, async (t) => {
      const { instance, token } = await startCluster(t, 'sqlite', { detached: true });
      await drainsInFlight(instance, token, () => process.kill(-(instance.child.pid as number), signal));
    });
  }
});

/** Sends `count` GET /healthz, each on a connection of its own; returns the pids of the workers that served them. */
async function healthzOnEveryWorker(instance: ServerProcess, count: number): Promise<number[]> {
  for (let i = 0; i < count; i++) assert.equal((await getOnNewConnection(`${instance.url}/healthz`)).status, 200);
  // Access lines are written in batches: wait until every request has its line, then see who served them.
  await until(() => (instance.stdout().match(/"route":"\/healthz"/g) ?? []).length === count, 'an access line per request');
  const servedBy = new Set([...instance.stdout().matchAll(/"pid":(\d+)[^\n]*"route":"\/healthz"/g)].map((match) => Number(match[1])));
  assert.equal(servedBy.size, 2, 'the requests were spread over both workers');
  return [...servedBy];
}

/** The /healthz figures of one scrape: requests counted, and latencies observed by the histogram. */
function healthzFigures(text: string): { requests: number; observed: number } {
  const counted = /^plantstore_http_requests_total\{route="\/healthz",method="GET",status="200"\} (\d+)$/m.exec(text);
  const observed = /^plantstore_http_request_duration_seconds_count\{route="\/healthz",method="GET"\} (\d+)$/m.exec(text);
  return { requests: Number(counted?.[1] ?? 0), observed: Number(observed?.[1] ?? 0) };
}

async function scrape(instance: ServerProcess): Promise<{ requests: number; observed: number }> {
  const { status, body } = await getOnNewConnection(`${instance.url}/metrics`);
  assert.equal(status, 200, body);
  return healthzFigures(body);
}

describe('serve --workers 2 and /metrics', () => {
  test('one scrape reports the requests of all workers: the counter equals the requests sent', async (t) => {
    const { instance } = await startCluster(t, 'sqlite');
    const sent = 40;
    await healthzOnEveryWorker(instance, sent);

    const scraped = await fetch(`${instance.url}/metrics`);
    assert.equal(scraped.status, 200);
    assert.match(scraped.headers.get('content-type') ?? '', /^text\/plain/);
    assert.deepEqual(healthzFigures(await scraped.text()), { requests: sent, observed: sent });
  });

  test('a worker that dies keeps its requests in the sum: the counter does not go down', async (t) => {
    const { instance } = await startCluster(t, 'sqlite');
    const [victim] = await healthzOnEveryWorker(instance, 20);
    const before = await scrape(instance);
    assert.deepEqual(before, { requests: 20, observed: 20 });

    process.kill(victim as number, 'SIGKILL');
    await until(() => listeningPids(instance).size === 3, 'a replacement worker');
    const after = await scrape(instance);
    assert.ok(after.requests >= before.requests, `requests went from ${before.requests} to ${after.requests}`);
    assert.ok(after.observed >= before.observed, `latencies observed went from ${before.observed} to ${after.observed}`);
  });

  test('a stalled worker does not fail the scrape: its last figures stand in for it', async (t) => {
    const { instance } = await startCluster(t, 'sqlite');
    const [stalled] = await healthzOnEveryWorker(instance, 20);
    const before = await scrape(instance);

    process.kill(stalled as number, 'SIGSTOP');
    t.after(() => process.kill(stalled as number, 'SIGCONT'));
    // The cluster may hand one of these connections to the stalled worker, never the second one too.
    const started = Date.now();
    const scrapes = [1, 2].map(() => getOnNewConnection(`${instance.url}/metrics`));
    for (const pending of scrapes) pending.catch(() => {});
    const { status, body } = await Promise.any(scrapes);
    assert.equal(status, 200, body);
    assert.ok(Date.now() - started < 4_000, 'the scrape waited for the stalled worker too long');
    assert.ok(healthzFigures(body).requests >= before.requests);
  });
});
