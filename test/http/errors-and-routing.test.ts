/** "Everything else" and the order of checks: 404, 405 with Allow, the Error body, 500 and 503. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { connect } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { issueToken } from '../../src/auth/api-tokens.js';
import { StoreUnavailableError } from '../../src/errors.js';
import { startServer } from '../../src/server.js';
import { loadSettings } from '../../src/settings.js';
import { assertError } from '../helpers/assertions.js';
import { authorizedFetch, startTestServer, storeKinds, tempDir, uniqueName } from '../helpers/server.js';

/** Sends one raw HTTP/1.1 request and resolves with the status line and the whole answer. */
function rawRequest(baseUrl: string, head: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(`${head}\r\nConnection: close\r\n\r\n`);
  });
}

const big = (n: number) => `{"id":1,"name":"Fern","pad":"${'x'.repeat(n)}"}`;

for (const kind of storeKinds()) {
  describe(`unknown paths and wrong methods on ${kind}`, () => {
    test('unknown path → 404 Error, with or without a token', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      for (const path of ['/', '/plant', '/PLANTS', '/plants/7/leaves', '/plants/7/', '/v1/plants', '/x/plants/7', '/healthz/x', '/plants//7']) {
        await assertError(await fetch(server.url + path), 404, `no token ${path}`);
        await assertError(await user.request(path, { method: 'POST', json: '{}' }), 404, `token ${path}`);
      }
    });

    test('known path, other method (PUT /plants) → 405 Error with an Allow header', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        const response = await user.request('/plants', { method });
        await assertError(response, 405, method);
        const allow = (response.headers.get('allow') ?? '').split(/,\s*/);
        assert.ok(allow.includes('GET') && allow.includes('POST'), `Allow: ${allow.join(', ')}`);
        assert.ok(!allow.includes(method));
      }
    });

    test('known path, other method (PATCH /plants/7) → 405 Error with Allow: GET, HEAD, DELETE', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const method of ['POST', 'PUT', 'PATCH']) {
        const response = await user.request('/plants/7', { method });
        await assertError(response, 405, method);
        assert.equal(response.headers.get('allow'), 'GET, HEAD, DELETE');
      }
      const collection = await user.request('/plants', { method: 'PUT' });
      assert.equal(collection.headers.get('allow'), 'GET, HEAD, POST');
    });

    test('an absolute-form request target (GET http://host/plants) is served like its path', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      await user.request('/plants', { method: 'POST', json: '{"id":1,"name":"Fern"}' });
      const host = new URL(server.url).host;
      const answer = await rawRequest(server.url, `GET http://${host}/plants?limit=5 HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${user.token}`);
      assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.ok(answer.endsWith('[{"name":"Fern"}]'), answer);
      const missing = await rawRequest(server.url, `GET http://${host}/nowhere HTTP/1.1\r\nHost: ${host}`);
      assert.match(missing, /^HTTP\/1\.1 404 /);
    });

    test('the methods named in Allow work', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const allow = (await user.request('/plants', { method: 'PUT' })).headers.get('allow') ?? '';
      for (const method of allow.split(/,\s*/)) {
        const response = await user.request('/plants', method === 'POST' ? { method, json: '{"id":1,"name":"Fern"}' } : { method });
        assert.ok(response.status < 300, `${method} → ${response.status}`);
      }
    });
  });

  describe(`order of checks on ${kind}`, () => {
    test('unknown path 404 comes before auth 401', async (t) => {
      const server = await startTestServer(t, kind);
      await assertError(await fetch(`${server.url}/nothing`, { method: 'POST', body: 'x' }), 404);
    });

    test('wrong method 405 comes before auth 401', async (t) => {
      const server = await startTestServer(t, kind);
      await assertError(await fetch(`${server.url}/plants`, { method: 'PUT' }), 405);
      await assertError(await fetch(`${server.url}/plants/7`, { method: 'PATCH' }), 405);
    });

    test('auth 401/403 comes before media type 415, size 413 and body 400', async (t) => {
      const server = await startTestServer(t, kind);
      const reader = await server.user({ readOnly: true });
      const headers = { 'content-type': 'text/plain' };
      await assertError(await fetch(`${server.url}/plants`, { method: 'POST', headers, body: big(20_000) }), 401);
      await assertError(await reader.request('/plants', { method: 'POST', headers, body: big(20_000) }), 403);
    });

    test('media type 415 comes before size 413', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await assertError(await user.request('/plants', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: big(20_000) }), 415);
    });

    test('size 413 comes before body 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await assertError(await user.request('/plants', { method: 'POST', json: `not json ${'x'.repeat(20_000)}` }), 413);
    });
  });

  describe(`Error bodies on ${kind}`, () => {
    test('every error body is application/json with {error: <status>, message: string} and nothing else', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const reader = await server.user({ readOnly: true });
      const cases: [Promise<Response>, number][] = [
        [user.request('/plants', { method: 'POST', json: '{"id":"x","name":"Fern"}' }), 400],
        [user.request('/plants?limit=x'), 400],
        [fetch(`${server.url}/plants`), 401],
        [reader.request('/plants/1', { method: 'DELETE' }), 403],
        [user.request('/plants/1', { method: 'DELETE' }), 404],
        [user.request('/nope'), 404],
        [user.request('/plants', { method: 'PUT' }), 405],
        [user.request('/plants', { method: 'POST', json: big(20_000) }), 413],
        [user.request('/plants', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } }), 415],
      ];
      for (const [response, status] of cases) await assertError(await response, status);
      await user.request('/plants', { method: 'POST', json: '{"id":1,"name":"Fern"}' });
      await assertError(await user.request('/plants', { method: 'POST', json: '{"id":1,"name":"Ivy"}' }), 409);
    });

    test('an unexpected failure is 500 with a generic message, no stack, no SQL', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const store = server.running.store;
      store.listPlants = async () => {
        throw new Error('SQLITE_CORRUPT: SELECT id FROM plants WHERE owner = ? at /srv/plantstore/src/store.ts:12');
      };
      store.deletePlant = async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'id')");
      };
      const listed = await assertError(await user.request('/plants?limit=5'), 500);
      assert.doesNotMatch(listed.message as string, /CORRUPT|owner|srv/);
      await assertError(await user.request('/plants/1', { method: 'DELETE' }), 500);
    });

    test('a database that is down makes requests fail with 503 and Retry-After', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const store = server.running.store;
      const down = async (): Promise<never> => {
        throw new StoreUnavailableError('connect ECONNREFUSED 10.0.0.5:5432');
      };
      store.listPlants = down;
      store.createPlant = down;
      for (const response of [await user.request('/plants?limit=1'), await user.request('/plants', { method: 'POST', json: '{"id":1,"name":"Fern"}' })]) {
        const body = await assertError(response, 503);
        assert.ok(response.headers.get('retry-after') !== null);
        assert.doesNotMatch(body.message as string, /ECONNREFUSED|10\.0\.0\.5/);
      }
    });

    if (kind === 'sqlite') {
      test('a SQLite file another process keeps locked → 503 with Retry-After; writes succeed once it lets go', async (t) => {
        const server = await startTestServer(t, kind);
        const user = await server.user();
        const locker = new Database(server.settings.databaseUrl.slice('sqlite:'.length));
        t.after(() => locker.close());
        locker.exec('BEGIN EXCLUSIVE');
        const started = Date.now();
        const refused = await user.request('/plants', { method: 'POST', json: '{"id":1,"name":"Fern"}' });
        const body = await assertError(refused, 503);
        assert.ok(refused.headers.get('retry-after') !== null);
        assert.doesNotMatch(body.message as string, /SQLITE|locked/);
        assert.ok(Date.now() - started < 15_000, 'the refusal comes after the busy timeout, not never');
        locker.exec('COMMIT');
        const created = await user.request('/plants', { method: 'POST', json: '{"id":1,"name":"Fern"}' });
        assert.equal(created.status, 200);
        assert.deepEqual(await (await user.request('/plants?limit=5&fields=id,name')).json(), [{ id: 1, name: 'Fern' }]);
      });
    }

    test('a database that is down while the token is checked → 503, not 401', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      server.running.store.findTokenByDigest = async () => {
        throw new StoreUnavailableError('SQLITE_BUSY: database is locked');
      };
      const response = await user.request('/plants');
      await assertError(response, 503);
      assert.equal(response.headers.get('www-authenticate'), null);
    });

    test('an unexpected failure leaves a log line with the request id; no log line holds the token', async (t) => {
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
      const databaseUrl = kind === 'postgres' ? (process.env.TEST_DATABASE_URL as string) : `sqlite:${join(tempDir(t), 'plantstore.db')}`;
      const running = await startServer(loadSettings({}, { port: '0', databaseUrl, bootstrapToken: 'false' }), { logger });
      t.after(() => running.close());
      const issued = await issueToken(running.store, { user: uniqueName('logged') });
      assert.ok(issued !== undefined);
      running.store.listPlants = async () => {
        throw new Error('boom in the store');
      };
      const response = await authorizedFetch(`${running.url}/plants?limit=1`, issued.token, { headers: { 'x-request-id': 'trace-500-test' } });
      await assertError(response, 500);
      assert.equal(response.headers.get('x-request-id'), 'trace-500-test');
      await authorizedFetch(`${running.url}/plants`, issued.token, { method: 'POST', json: '{"id":1,"name":"Fern"}' });
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const failure = records.find((record) => record.reqId === 'trace-500-test' && typeof record.level === 'number' && record.level >= 50);
      assert.ok(failure, 'an error-level line with the request id');
      assert.match(JSON.stringify(failure), /boom in the store/, 'the details go to the log, not to the client');
      assert.ok(!lines.some((line) => line.includes(issued.token)), 'the token never reaches a log');
    });
  });
}
