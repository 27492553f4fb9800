/**
 * Pipelined requests on one connection are handled in order, each after the response before it
 * is complete: a read pipelined after a write sees the write, as it would had the client waited.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
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
