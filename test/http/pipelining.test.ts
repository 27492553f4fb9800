/**
 * Pipelined requests on one connection are handled in order, each after the response before it
 * is complete: a read pipelined after a write sees the write, as it would had the client waited.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventEmitter, once } from 'node:events';
import { PipelineOrder } from '../../src/http/pipelining.js';
import { EndOfTurn } from '../../src/util/end-of-turn.js';
import { rawExchange } from '../helpers/raw-http.js';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { startTestServer, storeKinds } from '../helpers/server.js';

/** Sends `requests` in one segment, the last asking the server to close; returns each response's status and body. */
async function pipelined(url: string, requests: string[]): Promise<{ status: number; body: string }[]> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.write(requests.join(''));
  let received = '';
  for await (const chunk of socket) received += (chunk as Buffer).toString('utf8');
  return [...received.matchAll(/HTTP\/1\.1 (\d{3}) [^\r]*\r\n(?:[^\r]+\r\n)*\r\n((?:[[{][^\r]*?[\]}](?=HTTP|$))?)/g)].map((match) => ({
    status: Number(match[1]),
    body: match[2] ?? '',
  }));
}

for (const kind of storeKinds()) {
  test(`${kind}: a write and then reads pipelined on one connection are handled in that order`, async (t) => {
    const server = await startTestServer(t, kind);
    const user = await server.user();
    const head = (method: string, path: string, extra = '') => `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\n${extra}`;
    const body = '{"id":42,"name":"Fern"}';
    const responses = await pipelined(server.url, [
      `${head('POST', '/plants', `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`)}\r\n${body}`,
      `${head('GET', '/plants/42')}\r\n`,
      `${head('GET', '/plants?limit=5')}\r\n`,
      `${head('DELETE', '/plants/42')}\r\n`,
      `${head('GET', '/plants/42')}\r\n`,
      `${head('GET', '/plants?limit=5', 'Connection: close\r\n')}\r\n`,
    ]);
    assert.deepEqual(
      responses.map((response) => response.status),
      [200, 200, 200, 204, 404, 200],
    );
    assert.equal(responses[2]?.body, '[{"name":"Fern"}]');
    assert.equal(responses[5]?.body, '[]');
  });
}

/** The statuses of the responses in a raw exchange, in the order they came. */
function statuses(answer: string): number[] {
  return [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
}

for (const batching of ['true', 'false']) {
  test(`RESPONSE_BATCHING=${batching}: a CONNECT pipelined after requests gets its 400 after their responses`, async (t) => {
    const server = await startTestServer(t, 'sqlite', { responseBatching: batching });
    const answer = await rawExchange(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\nCONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n');
    assert.deepEqual(statuses(answer), [200, 200, 400], answer);
  });

  test(`RESPONSE_BATCHING=${batching}: bytes that are not HTTP after pipelined requests get their 400 after the responses`, async (t) => {
    const server = await startTestServer(t, 'sqlite', { responseBatching: batching });
    const answer = await rawExchange(
      server.url,
      'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n' +
        'POST /plants HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n',
    );
    assert.deepEqual(statuses(answer), [200, 200, 400], answer);
    assert.match(answer, /not well-formed HTTP\/1\.1/);
  });
}

for (const batching of ['true', 'false']) {
  test(`RESPONSE_BATCHING=${batching}: three pipelined requests answered at once each get their response`, async (t) => {
    const server = await startTestServer(t, 'sqlite', { responseBatching: batching });
    const request = (path: string, last = false) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
    const options = (last = false) => `OPTIONS /plants HTTP/1.1\r\nHost: x\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
    assert.deepEqual(statuses(await rawExchange(server.url, options() + options() + options(true), 3_000)), [204, 204, 204]);
    assert.deepEqual(statuses(await rawExchange(server.url, request('/healthz') + request('/healthz') + request('/healthz', true), 3_000)), [200, 200, 200]);
  });
}

test('a CONNECT pipelined after a long streamed list gets its 400 after the whole list', { timeout: 30_000 }, async (t) => {
  const server = await startTestServer(t);
  const user = await server.user();
  const seed = new Database(server.settings.databaseUrl.slice('sqlite:'.length));
  const insert = seed.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, NULL)');
  seed.transaction(() => {
    for (let i = 0; i < 150_000; i++) insert.run(user.name, i, `a plant with a name long enough to fill buffers ${i}`);
  })();
  seed.close();
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  socket.write(`GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\n\r\nCONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n`);
  socket.pause(); // the list backs up, so that it waits for the socket to drain
  await new Promise((resolve) => setTimeout(resolve, 500));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), 25_000);
  await once(socket, 'close');
  clearTimeout(timer);
  const answer = Buffer.concat(chunks).toString('utf8');
  assert.deepEqual(statuses(answer), [200, 400]);
  assert.ok(answer.includes('fill buffers 149999"}'), 'the whole list');
  assert.match(answer, /\]\r\n0\r\n\r\nHTTP\/1\.1 400 /, 'its end, then the 400');
});

test('a request that waited for the response before it starts at the end of the turn, before its other steps', async () => {
  const calls: string[] = [];
  const endOfTurn = new EndOfTurn();
  endOfTurn.set('endReads', () => calls.push('end reads'));
  const order = new PipelineOrder(endOfTurn);
  const socket = Object.assign(new EventEmitter(), { destroyed: false, writable: true });
  const response = () => Object.assign(new EventEmitter(), { writableFinished: false, destroyed: false }) as unknown as ServerResponse;
  const request = { socket } as unknown as IncomingMessage;
  const first = response();
  order.run(request, first, () => calls.push('first'));
  order.run(request, response(), () => calls.push('second'));
  assert.deepEqual(calls, ['first'], 'the first at once, the second waits');
  first.emit('close');
  assert.deepEqual(calls, ['first'], 'not in the close event');
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(calls, ['first', 'second', 'end reads']);
});

for (const kind of storeKinds()) {
  test(`${kind}: requests pipelined after a response that closes the connection are not run`, async (t) => {
    const lines: string[] = [];
    const server = await startTestServer(t, kind, {}, pino({ level: 'info' }, { write: (line: string) => lines.push(line) }));
    const user = await server.user();
    assert.equal((await user.request('/plants', { method: 'POST', json: { id: 7, name: 'Fern' } })).status, 200);
    const remove = `DELETE /plants/7 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\n\r\n`;
    const deletesLogged = () => lines.filter((line) => (JSON.parse(line) as { msg: string; method?: string }).msg === 'request' && line.includes('"method":"DELETE"')).length;
    // A 400 for two Authorization lines, then a 417 for an unmet Expect: each closes the connection.
    for (const [round, first] of [
      `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nAuthorization: Bearer ${user.token}\r\n\r\n`,
      `POST /plants HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Length: 0\r\n\r\n`,
    ].entries()) {
      const answer = await rawExchange(server.url, first + remove);
      assert.equal(statuses(answer).length, 1, answer);
      assert.match(answer, /^connection: close\r$/im);
      // The DELETE's access line says the server is done with it, run or not.
      for (let waited = 0; deletesLogged() <= round && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await user.request('/plants/7')).status, 200, `the DELETE pipelined after ${first.slice(0, 12)} did not run: ${answer}`);
    }
    // Each request not run has its access line, as one whose client left (499); the refusals theirs.
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; method?: string; status?: number }).filter((line) => line.msg === 'request');
    assert.deepEqual(logged.filter((line) => line.method === 'DELETE').map((line) => line.status), [499, 499]);
    assert.deepEqual(logged.filter((line) => line.status !== 499).map((line) => [line.method, line.status]), [['POST', 200], ['GET', 400], ['GET', 200], ['POST', 417], ['GET', 200]]);
  });

  test(`${kind}: a third request pipelined behind one not run is not run either, and both are logged`, async (t) => {
    const lines: string[] = [];
    const server = await startTestServer(t, kind, {}, pino({ level: 'info' }, { write: (line: string) => lines.push(line) }));
    const user = await server.user();
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\n\r\n`;
    const refused = `GET /plants HTTP/1.1\r\nHost: x\r\nContent-Type: a\r\nContent-Type: b\r\n\r\n`;
    const answer = await rawExchange(server.url, refused + get('/plants?limit=1') + get('/plants?limit=2'));
    assert.deepEqual(statuses(answer), [400]);
    const logged = () => lines.map((line) => JSON.parse(line) as { msg: string; status?: number }).filter((line) => line.msg === 'request');
    for (let waited = 0; logged().length < 3 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(logged().map((line) => line.status), [400, 499, 499]);
  });
}
