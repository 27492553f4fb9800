import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { nodeFetch } from '../../src/cli/node-fetch.js';

async function listen(t: TestContext, handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('nodeFetch sends method, headers and body and answers a Response with status, headers and body', async (t) => {
  const url = await listen(t, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.writeHead(201, 'Made', { link: '</x>; rel="next"', 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, url: req.url, auth: req.headers.authorization, body }));
    });
  });
  const response = await nodeFetch({ maxSockets: 2 })(`${url}/plants?a=1`, { method: 'POST', headers: { authorization: 'Bearer t' }, body: '{"id":1}' });
  assert.equal(response.status, 201);
  assert.equal(response.statusText, 'Made');
  assert.equal(response.headers.get('link'), '</x>; rel="next"');
  assert.deepEqual(await response.json(), { method: 'POST', url: '/plants?a=1', auth: 'Bearer t', body: '{"id":1}' });
});

test('a 204 has an empty body', async (t) => {
  const url = await listen(t, (_req, res) => {
    res.writeHead(204);
    res.end();
  });
  const response = await nodeFetch({ maxSockets: 1 })(url, { method: 'DELETE' });
  assert.equal(response.status, 204);
  assert.equal(await response.text(), '');
});

test('a 205 has an empty body; a status over 599 fails the request as a TypeError, never an uncaught exception', async (t) => {
  let status = 205;
  const url = await listen(t, (_req, res) => {
    res.writeHead(status);
    res.end();
  });
  const fetch = nodeFetch({ maxSockets: 1 });
  const reset = await fetch(url, { method: 'GET' });
  assert.equal(reset.status, 205);
  assert.equal(await reset.text(), '');
  status = 999;
  await assert.rejects(fetch(url, { method: 'GET' }), (error: unknown) => error instanceof TypeError && error.cause instanceof RangeError);
});

test('a server that stays silent fails the request with ETIMEDOUT, as a TypeError like fetch', async (t) => {
  const url = await listen(t, () => {});
  await assert.rejects(nodeFetch({ maxSockets: 1, timeoutMs: 200 })(url, { method: 'GET' }), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.equal((error.cause as { code?: string }).code, 'ETIMEDOUT');
    return true;
  });
});

test('a connection that is never made fails the request with ETIMEDOUT too', { timeout: 20_000 }, async (t) => {
  // A stopped server whose accept queue is full: the kernel drops further SYNs, as a firewall would.
  const listener = spawn(process.execPath, ['-e', "require('net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, function () { console.log(this.address().port); })"], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => listener.kill('SIGKILL'));
  const [output] = (await once(listener.stdout, 'data')) as [Buffer];
  const port = Number(output.toString());
  process.kill(listener.pid as number, 'SIGSTOP');
  const queued: Socket[] = [];
  t.after(() => queued.forEach((socket) => socket.destroy()));
  for (let connected = true; connected; ) {
    const socket = connect(port, '127.0.0.1');
    queued.push(socket);
    connected = await Promise.race([once(socket, 'connect').then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 500))]);
  }
  const started = Date.now();
  await assert.rejects(nodeFetch({ maxSockets: 1, timeoutMs: 300 })(`http://127.0.0.1:${port}/plants`, { method: 'GET' }), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.equal((error.cause as { code?: string }).code, 'ETIMEDOUT');
    return true;
  });
  assert.ok(Date.now() - started < 5_000);
});
