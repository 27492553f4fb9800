/**
 * Responses whose bytes are held to the end of the event-loop turn (response-batcher.ts): the
 * head is formed at once, the bytes go out in order at the turn's end, after the turn's writes
 * are committed, and nothing is written for a client whose connection is gone.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { test } from 'node:test';
import { sendEmpty, sendJson } from '../../src/http/respond.js';
import { ResponseBatcher } from '../../src/http/response-batcher.js';
import { EndOfTurn } from '../../src/util/end-of-turn.js';
import { startTestServer } from '../helpers/server.js';

/** The part of a ServerResponse the writer uses, recording what it was given. */
class RecordingResponse {
  destroyed = false;
  /** The connection; a pipelined answer waiting for its turn has none and goes by req.socket. */
  socket: { destroyed: boolean } | null = { destroyed: false };
  readonly req = { socket: { destroyed: false } };

  constructor(
    readonly name: string,
    private readonly log: string[],
  ) {}

  writeHead(status: number, headers: (string | number)[]): this {
    if (headers.some((value) => String(value).includes('\n'))) throw new TypeError('Invalid character in header content');
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

const batcher = new ResponseBatcher(new EndOfTurn());

function answerable(res: RecordingResponse, requestId: string, responses: ResponseBatcher | undefined) {
  return { res: res as unknown as ServerResponse, requestId, responses };
}

function batched(res: RecordingResponse, requestId: string) {
  return answerable(res, requestId, batcher);
}

test('the head is formed at once; the bytes of a turn’s responses go out at its end, in order', async () => {
  const log: string[] = [];
  const first = new RecordingResponse('first', log);
  const second = new RecordingResponse('second', log);
  sendJson(batched(first, 'r1'), 200, '[]', { link: '</plants?limit=1&after=1>; rel="next"' });
  sendEmpty(batched(second, 'r2'), 204);
  assert.deepEqual(log, [
    'first head 200 content-type,application/json,content-length,2,x-request-id,r1,x-content-type-options,nosniff,cache-control,no-store,link,</plants?limit=1&after=1>; rel="next"',
    'second head 204 x-request-id,r2,x-content-type-options,nosniff,cache-control,no-store',
  ]);
  await nextTurn();
  assert.deepEqual(log.slice(2), ['first end []', 'second end (none)']);
});

test('without a batcher each response is ended at once', () => {
  const log: string[] = [];
  sendJson(answerable(new RecordingResponse('now', log), 'r1', undefined), 200, '[]');
  assert.deepEqual(log.slice(1), ['now end []']);
});

test('at the end of a turn the writes are committed first, then the responses sent', async () => {
  const order: string[] = [];
  const endOfTurn = new EndOfTurn();
  const responses = new ResponseBatcher(endOfTurn);
  endOfTurn.set('sendWrites', () => order.push('commit'));
  sendEmpty(answerable(new RecordingResponse('r', order), 'r1', responses), 204);
  endOfTurn.schedule();
  await nextTurn();
  assert.deepEqual(order.slice(1), ['commit', 'r end (none)']);
});

test('content-length counts bytes, not characters', async () => {
  const log: string[] = [];
  sendJson(batched(new RecordingResponse('r', log), 'r1'), 200, '{"name":"Fougère 🌿"}');
  await nextTurn();
  assert.match(log[0] ?? '', /content-length,24,/);
});

test('nothing is written for a connection that is gone, whichever way it shows; the others are', async () => {
  const log: string[] = [];
  const reset = new RecordingResponse('reset', log); // the client reset it in this turn: only the socket knows
  const waiting = new RecordingResponse('waiting', log); // a pipelined answer without a socket yet
  const destroyed = new RecordingResponse('destroyed', log);
  const stays = new RecordingResponse('stays', log);
  for (const [res, id] of [[reset, 'r1'], [waiting, 'r2'], [destroyed, 'r3'], [stays, 'r4']] as const) sendJson(batched(res, id), 200, '[]');
  log.length = 0;
  reset.socket = { destroyed: true };
  waiting.socket = null;
  waiting.req.socket.destroyed = true;
  destroyed.destroyed = true;
  await nextTurn();
  assert.deepEqual(log, ['reset destroyed', 'waiting destroyed', 'destroyed destroyed', 'stays end []']);
});

test('a header node refuses fails the caller at once, so its error reaches the request’s error handling', () => {
  const log: string[] = [];
  assert.throws(() => sendJson(batched(new RecordingResponse('bad', log), 'r1'), 200, '[]', { link: 'a\nb' }), TypeError);
  assert.deepEqual(log, []);
});

test('pipelined requests on one connection get their responses in order, whole', async (t) => {
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
