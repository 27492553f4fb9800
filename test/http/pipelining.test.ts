/**
 * Pipelined requests on one connection are handled in order, each after the response before it
 * is complete: a read pipelined after a write sees the write, as it would had the client waited.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventEmitter } from 'node:events';
import { PipelineOrder } from '../../src/http/pipelining.js';
import { EndOfTurn } from '../../src/util/end-of-turn.js';
import { rawExchange } from '../helpers/raw-http.js';
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

test('a request that waited for the response before it starts at the end of the turn, before its other steps', async () => {
  const calls: string[] = [];
  const endOfTurn = new EndOfTurn();
  endOfTurn.setEndReads(() => calls.push('end reads'));
  const order = new PipelineOrder(endOfTurn);
  const socket = new EventEmitter();
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
