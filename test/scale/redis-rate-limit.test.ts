/**
 * RATE_LIMIT with REDIS_URL means one limit for the whole service: two instances, or two
 * workers, on one Redis share each owner's count. When Redis cannot be reached, at start or
 * mid-run, the service keeps serving and counts per process, with one warning; once Redis is
 * back, counting goes on in Redis.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { issueToken } from '../../src/auth/api-tokens.js';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { REDIS_COMMAND_TIMEOUT_MS, createRateLimiter } from '../../src/http/rate-limit.js';
import { openStore } from '../../src/store/open-store.js';
import { runCli, startServerProcess, type ServerProcess } from '../helpers/process.js';
import { authorizedFetch, tempDir, uniqueName } from '../helpers/server.js';
import { startTcpProxy } from './tcp-proxy.js';
import { until } from '../helpers/until.js';

const redisUrl = process.env.TEST_REDIS_URL;
const skip = redisUrl ? undefined : 'TEST_REDIS_URL is not set';
if (skip !== undefined) process.stdout.write(`# Redis rate-limit tests skipped: ${skip}\n`);

const FALLBACK_WARNING = 'Redis does not answer: RATE_LIMIT is counted per process until it is back';
const BACK = 'Redis answers again: RATE_LIMIT is counted in Redis';

/** A Redis user of its own, with `password` and every command but those `rules` take away; the URL logs in as it. */
async function redisUser(t: TestContext, password: string, ...rules: string[]): Promise<{ admin: Redis; user: string; url: URL }> {
  const admin = new Redis(redisUrl as string);
  const user = uniqueName('plantstore-test-user');
  t.after(async () => {
    await admin.call('ACL', 'DELUSER', user);
    admin.disconnect();
  });
  await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '+@all', ...rules);
  const url = new URL(redisUrl as string);
  url.username = user;
  url.password = password;
  return { admin, user, url };
}

/** A limiter on `url` whose log lines are kept. */
function loggingLimiter(t: TestContext, url: URL): { limiter: ReturnType<typeof createRateLimiter>; lines: { msg: string; reason?: string }[] } {
  const lines: { msg: string; reason?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });
  const limiter = createRateLimiter({ limit: { requests: 5, windowMs: 60_000 }, redisUrl: url.href, redisKeyPrefix: `plantstore-test:${uniqueName('rl')}`, logger });
  t.after(() => limiter.close());
  return { limiter, lines };
}

/** A SQLite database with one owner's token, for servers started on it. */
async function databaseWithToken(t: TestContext): Promise<{ databaseUrl: string; token: string }> {
  const databaseUrl = `sqlite:${join(tempDir(t), 'plantstore.db')}`;
  const store = await openStore({ databaseUrl, databasePoolSize: 1 });
  try {
    const issued = await issueToken(store, { user: uniqueName() });
    if (issued === undefined) throw new Error('no token issued');
    return { databaseUrl, token: issued.token };
  } finally {
    await store.close();
  }
}

function serverEnv(databaseUrl: string, rateLimit: string, redis: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false', RATE_LIMIT: rateLimit, REDIS_URL: redis, REDIS_KEY_PREFIX: `plantstore-test:${uniqueName('rl')}` };
}

/** A plantstore process whose Redis is reached through a TCP proxy the test can close, and a GET of one page there. */
async function serverThroughProxy(t: TestContext, rateLimit: string) {
  const target = new URL(redisUrl as string);
  const proxy = await startTcpProxy(t, { host: target.hostname, port: Number(target.port || '6379') });
  const throughProxy = new URL(redisUrl as string);
  throughProxy.hostname = '127.0.0.1';
  throughProxy.port = String(proxy.port);
  const { databaseUrl, token } = await databaseWithToken(t);
  const instance = await startServerProcess(t, serverEnv(databaseUrl, rateLimit, throughProxy.toString()));
  const get = async () => {
    const response = await authorizedFetch(`${instance.url}/plants?limit=1`, token);
    await response.arrayBuffer();
    return response;
  };
  return { proxy, instance, get };
}

/** Requests left, from the RateLimit header. */
function remaining(response: Response): number {
  const match = /;r=(\d+);/.exec(response.headers.get('ratelimit') ?? '');
  assert.ok(match !== null, `RateLimit header: ${response.headers.get('ratelimit')}`);
  return Number(match[1]);
}

function warnings(instance: ServerProcess, text: string): number {
  return instance.stdout().split('\n').filter((line) => line.includes(text)).length;
}

/** A GET on a connection of its own, so that --workers spreads the requests over its workers. */
function getOnNewConnection(url: string, token: string): Promise<{ status: number; requestId: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/plants?limit=1`, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id']) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('RATE_LIMIT counted in Redis', { skip }, () => {
  test('two instances on one Redis share each owner’s limit', async (t) => {
    const { databaseUrl, token } = await databaseWithToken(t);
    const env = serverEnv(databaseUrl, '10/1h', redisUrl as string);
    const [a, b] = await Promise.all([startServerProcess(t, env), startServerProcess(t, env)]);
    const statuses: number[] = [];
    const left: number[] = [];
    for (let i = 0; i < 14; i++) {
      const response = await authorizedFetch(`${(i % 2 === 0 ? a : b).url}/plants?limit=1`, token);
      await response.arrayBuffer();
      statuses.push(response.status);
      left.push(remaining(response));
    }
    assert.deepEqual(statuses, [...Array<number>(10).fill(200), 429, 429, 429, 429], 'ten requests in all, whichever instance takes them');
    assert.deepEqual(left, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0]);
    assert.equal(warnings(a, FALLBACK_WARNING) + warnings(b, FALLBACK_WARNING), 0);
  });

  test('a changed RATE_LIMIT counts in keys of its own: the old quota’s count does not carry over', async (t) => {
    const { databaseUrl, token } = await databaseWithToken(t);
    const prefix = `plantstore-test:${uniqueName('rl')}`;
    const statusesOn = async (rateLimit: string, count: number) => {
      const server = await startServerProcess(t, { ...serverEnv(databaseUrl, rateLimit, redisUrl as string), REDIS_KEY_PREFIX: prefix });
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) {
        const response = await authorizedFetch(`${server.url}/plants?limit=1`, token);
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      return statuses;
    };
    assert.deepEqual(await statusesOn('3/1h', 4), [200, 200, 200, 429]);
    assert.deepEqual(await statusesOn('5/1h', 6), [200, 200, 200, 200, 200, 429], 'a new quota starts from zero');
  });

  test('a changed window alone counts in keys of its own too', async (t) => {
    const prefix = `plantstore-test:${uniqueName('rl')}`;
    const decisions = async (windowMs: number, count: number) => {
      const limiter = createRateLimiter({ limit: { requests: 3, windowMs }, redisUrl: redisUrl as string, redisKeyPrefix: prefix, logger: pino({ level: 'silent' }) });
      t.after(() => limiter.close());
      await limiter.started;
      const allowed: boolean[] = [];
      for (let i = 0; i < count; i++) allowed.push((await limiter.consume('ana')).allowed);
      return allowed;
    };
    assert.deepEqual(await decisions(3_600_000, 4), [true, true, true, false]);
    assert.deepEqual(await decisions(7_200_000, 4), [true, true, true, false], 'a new window starts from zero');
  });

  test('REDIS_KEY_PREFIX keeps the counts of services that share one Redis apart', async (t) => {
    const remainingOn = async (prefix: string) => {
      const limiter = createRateLimiter({ limit: { requests: 5, windowMs: 60_000 }, redisUrl: redisUrl as string, redisKeyPrefix: prefix, logger: pino({ level: 'silent' }) });
      t.after(() => limiter.close());
      await limiter.started;
      return [(await limiter.consume('ana')).remaining, (await limiter.consume('ana')).remaining];
    };
    const run = uniqueName('rl');
    assert.deepEqual(await remainingOn(`plantstore-test:${run}:a`), [4, 3]);
    assert.deepEqual(await remainingOn(`plantstore-test:${run}:b`), [4, 3], 'the same owner, counted apart under another prefix');
  });

  test('the workers of --workers 2 share each owner’s limit', async (t) => {
    const { databaseUrl, token } = await databaseWithToken(t);
    const instance = await startServerProcess(t, { ...serverEnv(databaseUrl, '10/1h', redisUrl as string), WORKERS: '2' });
    await until(() => (instance.stdout().match(/plantstore is listening/g) ?? []).length === 2, 'two workers to listen');
    const answers = [];
    for (let i = 0; i < 16; i++) answers.push(await getOnNewConnection(instance.url, token));
    const workers = new Set(answers.map((answer) => answer.requestId.split('-')[0]));
    assert.equal(workers.size, 2, 'both workers answered');
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [...Array<number>(10).fill(200), ...Array<number>(6).fill(429)],
    );
  });

  test('with Redis unreachable from the start the service serves, counts per process, and warns once', async (t) => {
    const { databaseUrl, token } = await databaseWithToken(t);
    const instance = await startServerProcess(t, serverEnv(databaseUrl, '3/1h', `redis://127.0.0.1:${await closedPort()}`));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await authorizedFetch(`${instance.url}/plants?limit=1`, token);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429], 'the per-process limit holds');
    await until(() => warnings(instance, FALLBACK_WARNING) > 0, 'the warning (logs are written in batches)');
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // several reconnect attempts fail meanwhile
    assert.equal((await authorizedFetch(`${instance.url}/healthz`, token)).status, 200);
    assert.equal(warnings(instance, FALLBACK_WARNING), 1, 'one warning, however many reconnects fail');
    assert.doesNotMatch(instance.stdout(), /"level":50/, 'no error lines');
  });

  for (const [form, path, query] of [['path', '/99', ''], ['query', '/', '?db=99']] as const) {
    test(`a REDIS_URL naming a database Redis does not have (in its ${form}) stops the start with one line naming REDIS_URL`, { timeout: 15_000 }, async (t) => {
      const { databaseUrl } = await databaseWithToken(t);
      const url = new URL(redisUrl as string);
      url.pathname = path;
      url.search = query;
      const result = await runCli(['serve', '--port', '0'], serverEnv(databaseUrl, '3/1h', url.href));
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /^plantstore: cannot use Redis: Redis at \S+ has no database 99 \(ERR DB index is out of range\); set REDIS_URL to .*\n$/);
      assert.doesNotMatch(result.stdout, /Redis does not answer|Redis answers again|plantstore is listening/);
    });
  }

  test('a REDIS_URL whose login Redis refuses stops the start with one line naming REDIS_URL, never its password', { timeout: 15_000 }, async (t) => {
    const { databaseUrl } = await databaseWithToken(t);
    const url = new URL(redisUrl as string);
    url.username = 'no-such-user';
    url.password = 'secret-password';
    const result = await runCli(['serve', '--port', '0'], serverEnv(databaseUrl, '3/1h', url.href));
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^plantstore: cannot use Redis: Redis at \S+ refused the login \(WRONGPASS [^)]*\); fix the user name or password in REDIS_URL\n$/);
    assert.doesNotMatch(result.stderr + result.stdout, /secret-password/);
    assert.doesNotMatch(result.stdout, /Redis does not answer|plantstore is listening/);
  });

  test("a REDIS_URL whose user may not use its database stops the start naming the user's permissions, and is not logged besides", { timeout: 15_000 }, async (t) => {
    const { url } = await redisUser(t, 'a-password', '-select');
    url.pathname = '/1';
    const { limiter, lines } = loggingLimiter(t, url);
    await assert.rejects(limiter.started, /^StartError: cannot use Redis: Redis at \S+ does not let REDIS_URL's user select its database \(NOPERM [^)]*\); allow it in the user's ACL \(\+select\), or use another user$/);
    assert.deepEqual(lines, [], 'the start error says it all: no log line besides');
  });

  test('a login Redis refuses after the start is logged once, not on every reconnect', { timeout: 30_000 }, async (t) => {
    const { admin, user, url } = await redisUser(t, 'first-password');
    const { limiter, lines } = loggingLimiter(t, url);
    await limiter.started;
    assert.equal((await limiter.consume('ana')).remaining, 4);

    const refusedLogins = async () => {
      const log = (await admin.call('ACL', 'LOG')) as unknown[][];
      const entry = log.map((fields) => Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]]))).find((e) => e.username === user);
      return Number(entry?.count ?? 0);
    };
    await admin.call('ACL', 'SETUSER', user, 'resetpass', '>second-password');
    await admin.call('CLIENT', 'KILL', 'USER', user);
    const deadline = Date.now() + 20_000;
    while ((await refusedLogins()) < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok((await refusedLogins()) >= 3, 'the client tried to log in again at least three times');
    const refusals = lines.filter((line) => line.msg === 'Redis refuses what REDIS_URL asks for');
    assert.equal(refusals.length, 1, JSON.stringify(refusals));
    assert.match(refusals[0]?.reason ?? '', /refused the login \(WRONGPASS/);
    assert.doesNotMatch(JSON.stringify(lines), /first-password|second-password/);
  });

  test('a login refused again after Redis took it back in between is logged again', { timeout: 30_000 }, async (t) => {
    const { admin, user, url } = await redisUser(t, 'first-password');
    const { limiter, lines } = loggingLimiter(t, url);
    await limiter.started;
    const refusals = () => lines.filter((line) => line.msg === 'Redis refuses what REDIS_URL asks for').length;
    const refuseLogin = async (outage: number) => {
      await admin.call('ACL', 'SETUSER', user, 'resetpass', '>second-password');
      await admin.call('CLIENT', 'KILL', 'USER', user);
      await until(() => refusals() === outage, `the refusal of outage ${outage}`);
    };
    await refuseLogin(1);
    await admin.call('ACL', 'SETUSER', user, 'resetpass', '>first-password');
    // Logged in again, and past ioredis's ready check (INFO), the last command before 'ready'.
    const deadline = Date.now() + 15_000;
    const readyAgain = async () =>
      ((await admin.call('CLIENT', 'LIST')) as string).split('\n').some((client) => client.includes(` user=${user} `) && !/ cmd=(auth|hello|NULL) /.test(client));
    while (!(await readyAgain())) {
      assert.ok(Date.now() < deadline, 'timed out waiting for the client to log in again');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    await refuseLogin(2);
  });

  test('a request counted before Redis first answered is no outage: neither a warning nor "answers again"', async (t) => {
    const lines: { msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });
    const limiter = createRateLimiter({ limit: { requests: 5, windowMs: 60_000 }, redisUrl: redisUrl as string, redisKeyPrefix: `plantstore-test:${uniqueName('rl')}`, logger });
    t.after(() => limiter.close());
    // Still connecting: counted in this process, as while Redis is away.
    assert.equal((await limiter.consume('ana')).allowed, true);
    await limiter.started;
    assert.equal((await limiter.consume('ana')).allowed, true);
    assert.deepEqual(lines.map((line) => line.msg).filter((msg) => msg === FALLBACK_WARNING || msg === BACK), []);
  });

  test('when Redis goes away mid-run the service keeps serving, and counts in Redis again once it is back', async (t) => {
    const { proxy, instance, get } = await serverThroughProxy(t, '10/1h');
    const before = [];
    for (let i = 0; i < 4; i++) before.push(remaining(await get()));
    assert.deepEqual(before, [9, 8, 7, 6], 'counted in Redis');

    proxy.setMode('refuse');
    for (let i = 0; i < 5; i++) assert.equal((await get()).status, 200, 'served while Redis is away');
    await until(() => warnings(instance, FALLBACK_WARNING) > 0, 'the warning (logs are written in batches)');
    assert.equal(warnings(instance, FALLBACK_WARNING), 1, 'one warning for the outage');

    proxy.setMode('open');
    await until(() => warnings(instance, BACK) === 1, 'the client to reconnect to Redis');
    assert.equal(remaining(await get()), 5, "Redis's count goes on where it was");
    assert.equal(warnings(instance, FALLBACK_WARNING), 1);
  });

  test('a Redis that was silent and answers again on the same connection counts again, and a second silence warns again', async (t) => {
    const { proxy, instance, get } = await serverThroughProxy(t, '100/1h');
    assert.equal(remaining(await get()), 99, 'counted in Redis');
    const silence = async (outage: number) => {
      proxy.setMode('blackhole');
      for (let i = 0; i < 3; i++) assert.equal((await get()).status, 200, 'served while Redis is silent');
      await until(() => warnings(instance, FALLBACK_WARNING) === outage, `the warning of outage ${outage}`);
    };
    await silence(1);
    proxy.resume();
    // Requests keep coming, as in production: Redis is tried again after a short while.
    await until(() => {
      void get();
      return warnings(instance, BACK) === 1;
    }, 'the line saying Redis answers again');
    await silence(2);
    assert.equal(warnings(instance, BACK), 1);
  });

  test('a Redis gone silent slows no more than a request now and then', async (t) => {
    const { proxy, instance, get } = await serverThroughProxy(t, '100/1h');
    assert.equal((await get()).status, 200);
    proxy.setMode('blackhole'); // Redis's connection stays open, and nothing comes back
    // A request that waited for Redis took its whole command timeout, whatever the machine's load;
    // one that skipped Redis did not, unless the machine stalled it. Timers may fire a little early.
    const slow: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      assert.equal((await get()).status, 200);
      const ms = performance.now() - started;
      if (ms >= REDIS_COMMAND_TIMEOUT_MS * 0.9) slow.push(Math.round(ms));
    }
    assert.ok(slow.length <= 5, `${slow.length} of 20 requests took ${slow.join(', ')} ms: they waited for Redis`);
    await until(() => warnings(instance, FALLBACK_WARNING) > 0, 'the warning');
    assert.equal(warnings(instance, FALLBACK_WARNING), 1);
  });
});
