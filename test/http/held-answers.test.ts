/**
 * Answers held to the end of the event-loop turn (respond.ts): written in the order they were
 * given, each whole, none for a client that left, and a failing one cut rather than lost silently.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { test } from 'node:test';
import { isAnswerHeld, sendEmpty, sendJson } from '../../src/http/respond.js';
import { startTestServer } from '../helpers/server.js';

/** The part of a ServerResponse the writer uses, recording what it was given. */
class RecordingResponse {
  destroyed = false;
  readonly calls: string[] = [];

  constructor(
    readonly name: string,
    private readonly log: string[],
    private readonly failWriteHead = false,
  ) {}

  writeHead(status: number, headers: (string | number)[]): this {
    if (this.failWriteHead) throw new TypeError('Invalid character in header content');
    this.log.push(`${this.name} head ${status} ${headers.join(',')}`);
    return this;
  }

  end(body?: string): this {
    this.log.push(`${this.name} end ${body ?? '(none)'}`);
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    this.log.push(`${this.name} destroyed`);
    return this;
  }
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function answerable(res: RecordingResponse, requestId: string) {
  return { res: res as unknown as ServerResponse, requestId };
}

test('answers given in one turn are written at its end, in order, each head then body', async () => {
  const log: string[] = [];
  const first = new RecordingResponse('first', log);
  const second = new RecordingResponse('second', log);
  sendJson(answerable(first, 'r1'), 200, '[]', { link: '</plants?limit=1&after=1>; rel="next"' });
  sendEmpty(answerable(second, 'r2'), 204);
  assert.deepEqual(log, [], 'nothing is written before the turn ends');
  assert.equal(isAnswerHeld(first as unknown as ServerResponse), true);
  await nextTurn();
  assert.deepEqual(log, [
    'first head 200 content-type,application/json,content-length,2,x-request-id,r1,link,</plants?limit=1&after=1>; rel="next"',
    'first end []',
    'second head 204 x-request-id,r2',
    'second end (none)',
  ]);
  assert.equal(isAnswerHeld(first as unknown as ServerResponse), false, 'written, no longer held');
});

test('content-length counts bytes, not characters', async () => {
  const log: string[] = [];
  sendJson(answerable(new RecordingResponse('r', log), 'r1'), 200, '{"name":"Fougère 🌿"}');
  await nextTurn();
  assert.match(log[0] ?? '', /content-length,24,/);
});

test('an answer for a client that left is not written; the others still are', async () => {
  const log: string[] = [];
  const gone = new RecordingResponse('gone', log);
  const stays = new RecordingResponse('stays', log);
  sendJson(answerable(gone, 'r1'), 200, '[]');
  sendJson(answerable(stays, 'r2'), 200, '[]');
  gone.destroyed = true;
  await nextTurn();
  assert.deepEqual(log, ['stays head 200 content-type,application/json,content-length,2,x-request-id,r2', 'stays end []']);
});

test('an answer node refuses to write is cut, and the turn’s other answers are written', async () => {
  const log: string[] = [];
  sendJson(answerable(new RecordingResponse('bad', log, true), 'r1'), 200, '[]');
  sendJson(answerable(new RecordingResponse('good', log), 'r2'), 200, '[]');
  await nextTurn();
  assert.deepEqual(log, ['bad destroyed', 'good head 200 content-type,application/json,content-length,2,x-request-id,r2', 'good end []']);
});

test('pipelined requests on one connection are answered in order, whole', async (t) => {
  const server = await startTestServer(t, 'sqlite');
  const user = await server.user();
  assert.equal((await user.request('/plants', { method: 'POST', json: '{"id":1,"name":"Fern"}' })).status, 200);
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  t.after(() => socket.destroy());
  const auth = `Authorization: Bearer ${user.token}\r\nHost: ${hostname}\r\n`;
  const requests = [
    `GET /plants?limit=1 HTTP/1.1\r\n${auth}\r\n`,
    `DELETE /plants/999 HTTP/1.1\r\n${auth}\r\n`,
    `GET /plants?limit=5 HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`,
  ];
  socket.write(requests.join('')); // all three in one segment; the last asks the server to close
  let received = '';
  for await (const chunk of socket) received += (chunk as Buffer).toString('utf8');
  const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
  assert.deepEqual(statuses, [200, 404, 200]);
  assert.equal(received.split('[{"name":"Fern"}]').length - 1, 2, 'both pages, whole');
  assert.match(received, /"error":404/);
});
