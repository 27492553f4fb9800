import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { Agent, request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { authorizedFetch, startTestServer, tempDir } from '../helpers/server.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';

describe('graceful shutdown', () => {
  test('SIGTERM to `npm start` reaches the server, which drains and exits 0', { timeout: 30_000 }, async (t) => {
    const env = { DATABASE_URL: `sqlite:${join(tempDir(t), 'npm.db')}`, BOOTSTRAP_TOKEN: 'false' };
    const server = await startServerProcess(t, env, [], { npmStart: true });
    server.child.kill('SIGTERM'); // npm itself, as a supervisor that started `npm start` would
    const [code] = await server.exited;
    assert.equal(code, 0);
    assert.match(server.stdout(), /plantstore stopped/);
    await assert.rejects(fetch(`${server.url}/healthz`), 'nothing listens any more');
  });

  test('from the start of the drain /readyz answers 503, while the server still answers', async (t) => {
    const server = await startTestServer(t);
    const ready = () => fetch(`${server.url}/readyz`, { headers: { connection: 'close' } });
    assert.equal((await ready()).status, 200);
    // An open connection makes the drain wait its grace before it stops listening.
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    await once(socket, 'connect');
    t.after(() => socket.destroy());
    const closing = server.running.close();
    const response = await ready();
    assert.equal(response.status, 503);
    assert.deepEqual(await response.json(), { error: 503, message: 'The server is shutting down.' });
    assert.equal((await fetch(`${server.url}/healthz`, { headers: { connection: 'close' } })).status, 200, 'alive, only not ready');
    socket.destroy();
    await closing;
  });

  test('while draining, a busy keep-alive connection is answered with Connection: close, so the drain ends', async (t) => {
    const server = await startTestServer(t);
    const { token } = await server.user();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    t.after(() => agent.destroy());
    const send = (path: string, body?: string) => {
      const req = request(`${server.url}${path}`, {
        agent,
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }) },
      });
      const response = once(req, 'response').then(async (args) => {
        const res = args[0] as IncomingMessage;
        res.resume();
        await once(res, 'end');
        return res;
      });
      return { req, response };
    };

    const body = JSON.stringify({ id: 7, name: 'Busy fern' });
    const received = once(server.running.server, 'request');
    const first = send('/plants', body);
    first.req.write(body.slice(0, 10)); // in flight when the drain starts
    await received;
    const closing = server.running.close();
    first.req.end(body.slice(10));
    assert.equal((await first.response).statusCode, 200);

    const second = send('/plants?limit=1'); // the same connection, as a proxy's pool would reuse it
    second.req.end();
    const response = await second.response;
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers.connection, 'close');
    const waited = Date.now();
    await closing;
    assert.ok(Date.now() - waited < 8_000, 'the drain ends once the connection is closed, not at its 10 s limit');
  });

  test('a request sent on an idle keep-alive connection just after the drain began is answered', async (t) => {
    const server = await startTestServer(t);
    const { token } = await server.user();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    t.after(() => agent.destroy());
    const sockets: unknown[] = [];
    const get = () =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(`${server.url}/plants?limit=1`, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res));
        });
        req.on('socket', (socket) => sockets.push(socket));
        req.on('error', reject);
        req.end();
      });

    assert.equal((await get()).statusCode, 200); // the connection is now idle in the agent's pool
    const closing = server.running.close();
    await new Promise((resolve) => setImmediate(resolve)); // the drain has begun
    const late = await get(); // as a proxy would send on its pooled connection at that moment
    assert.equal(late.statusCode, 200);
    assert.equal(late.headers.connection, 'close');
    assert.equal(sockets[0], sockets[1], 'both requests went over the one connection');
    await closing;
  });

  test('connections given a CONNECT refusal are cut with the others at 10 s: one behind an unread list, one left open', { timeout: 60_000 }, async (t) => {
    const lines: { msg: string; route?: string; method?: string; status?: number; cut?: string }[] = [];
    const server = await startTestServer(t, 'sqlite', {}, pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) }));
    const user = await server.user();
    const db = new Database(server.settings.databaseUrl.slice('sqlite:'.length));
    const insert = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, NULL)');
    const name = 'a plant with a name long enough to fill the socket buffers quickly '.repeat(3);
    db.transaction(() => {
      for (let id = 0; id < 40_000; id++) insert.run(user.name, id, name);
    })();
    db.close();
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    t.after(() => socket.destroy());
    socket.write(`GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\n\r\nCONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n`);
    socket.once('data', () => socket.pause()); // the list has begun; from here on nothing is read
    await once(socket, 'data');
    // A client that reads its 400 and never closes its side of the connection.
    const bare = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    bare.on('error', () => undefined);
    t.after(() => bare.destroy());
    bare.write('CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n');
    bare.resume();
    await once(bare, 'end');
    // A create whose body never comes: nothing of its response is out when the drain cuts it.
    const unanswered = connect(Number(port), '127.0.0.1');
    unanswered.on('error', () => undefined);
    t.after(() => unanswered.destroy());
    unanswered.write(`POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    await server.running.close();
    const took = Date.now() - started;
    assert.ok(took < 15_000, `the drain took ${took} ms: a connection outlived the 10 s cut`);
    // The list the drain cut is no client that left (499): it keeps its 200 and says why. Its
    // socket, which node gave up with the CONNECT, may close just after close() returned.
    const list = () => lines.filter((line) => line.msg === 'request' && line.route === '/plants' && line.method === 'GET');
    await until(() => list().length > 0, 'the access line of the list the drain cut');
    assert.deepEqual(list().map((line) => [line.status, line.cut]), [[200, "the drain's limit of 10 s passed"]]);
    // The create never had a status: it is not logged as a 200.
    const create = () => lines.filter((line) => line.msg === 'request' && line.method === 'POST');
    await until(() => create().length > 0, 'the access line of the unanswered create');
    assert.deepEqual(create().map((line) => [line.status, line.cut]), [[499, undefined]]);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} lets an in-flight request finish, then closes the database and exits 0`, async (t) => {
      const databaseUrl = `sqlite:${join(tempDir(t), 'drain.db')}`;
      const token = (await runCli(['token', 'create', '--user', 'drainer', '--database-url', databaseUrl])).stdout.trim();
      const env = { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' };
      const server = await startServerProcess(t, env);

      // A POST whose body arrives in two parts, with the signal in between. The server's
      // 100 Continue says it is reading the body: the request is in flight.
      const body = JSON.stringify({ id: 42, name: 'Slow fern' });
      const slow = request(`${server.url}/plants`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      });
      const answered = once(slow, 'response');
      const reading = once(slow, 'continue');
      slow.write(body.slice(0, 10));
      await reading;
      server.child.kill(signal);
      await until(() => server.stdout().includes('draining in-flight requests'), 'the drain to begin');
      slow.end(body.slice(10));
      const [response] = (await answered) as [import('node:http').IncomingMessage];
      response.resume();
      assert.equal(response.statusCode, 200);

      const [code] = await server.exited;
      assert.equal(code, 0);
      assert.match(server.stdout(), /plantstore stopped/);

      const restarted = await startServerProcess(t, env);
      const plants = await (await authorizedFetch(`${restarted.url}/plants`, token)).json();
      assert.deepEqual(plants, [{ name: 'Slow fern' }]);
    });
  }
});
