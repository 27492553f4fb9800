/**
 * What node's HTTP parser refuses has its access line and its count too: one of its own when
 * the app never saw a request, or that of the request the app was reading, with the status it
 * was answered (not 499, which says the client left) and the client's X-Request-Id.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { rawExchangeClosed } from '../helpers/raw-http.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

interface AccessLine {
  msg: string;
  reqId: string;
  method: string;
  route: string;
  status: number;
  cut?: string;
}

const requestId = (response: string) => /\r\nX-Request-Id: (\S+)\r\n/.exec(response)?.[1];

test('requests the parser refuses are logged and counted, each with the id its response carries', async (t) => {
  const lines: AccessLine[] = [];
  const server = await startTestServer(t, 'sqlite', {}, pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as AccessLine) }));
  const user = await server.user();
  const accessLine = async (id: string | undefined) => {
    await until(() => lines.some((line) => line.msg === 'request' && line.reqId === id), `the access line of ${id}`);
    const found = lines.filter((line) => line.msg === 'request' && line.reqId === id);
    assert.equal(found.length, 1, JSON.stringify(found));
    return found[0] as AccessLine;
  };

  const garbage = await rawExchangeClosed(server.url, 'GARBAGE\r\n\r\n');
  assert.match(garbage, /^HTTP\/1\.1 400 /);
  const garbageLine = await accessLine(requestId(garbage));
  assert.deepEqual([garbageLine.method, garbageLine.route, garbageLine.status], ['', 'unparsed', 400]);

  const connect = await rawExchangeClosed(server.url, 'CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nX-Request-Id: connect-1\r\n\r\n');
  assert.equal(requestId(connect), 'connect-1');
  const connectLine = await accessLine('connect-1');
  assert.deepEqual([connectLine.method, connectLine.route, connectLine.status], ['CONNECT', 'unparsed', 400]);

  // A chunked body whose second chunk size is not hexadecimal: the app is reading it when the parser gives up.
  const chunked = await rawExchangeClosed(
    server.url,
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\n` +
      'Transfer-Encoding: chunked\r\nX-Request-Id: chunked-1\r\n\r\n5\r\n{"id"\r\nzz\r\n',
  );
  assert.match(chunked, /^HTTP\/1\.1 400 /);
  assert.equal(requestId(chunked), 'chunked-1');
  const line = await accessLine('chunked-1');
  assert.deepEqual([line.method, line.route, line.status, line.cut], ['POST', '/plants', 400, 'The request is not well-formed HTTP/1.1.']);

  // Without an id of the client's, the line has the one the Error carried.
  const anonymous = await rawExchangeClosed(
    server.url,
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\n` +
      'Transfer-Encoding: chunked\r\n\r\n5\r\n{"id"\r\nzz\r\n',
  );
  assert.match(anonymous, /^HTTP\/1\.1 400 /);
  assert.equal((await accessLine(requestId(anonymous))).route, '/plants');

  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(metrics, /^plantstore_http_requests_total\{route="unparsed",method="",status="400"\} 1$/m);
  assert.match(metrics, /^plantstore_http_requests_total\{route="unparsed",method="CONNECT",status="400"\} 1$/m);
  assert.match(metrics, /^plantstore_http_requests_total\{route="\/plants",method="POST",status="400"\} 2$/m);
  assert.doesNotMatch(metrics, /status="499"/);
});
