/**
 * A client that asks for a long list and then reads nothing is cut off after 30 s, and the
 * database snapshot it held is released (otherwise the WAL could never be checkpointed).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { STALLED_READER_MS } from '../../src/http/list-stream.js';
import { startTestServer } from '../helpers/server.js';

const PLANTS = 150_000; // several MB of JSON: more than the socket buffers hold
const SLACK_MS = 5_000;

describe('a client that stops reading a streamed list', () => {
  test('is cut off after 30 s and its snapshot is released', { timeout: 3 * STALLED_READER_MS }, async (t) => {
    const server = await startTestServer(t);
    const user = await server.user();
    const path = server.settings.databaseUrl.slice('sqlite:'.length);
    const seed = new Database(path);
    const insert = seed.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, NULL)');
    seed.transaction(() => {
      for (let i = 0; i < PLANTS; i++) insert.run(user.name, i, `a plant with a name long enough to fill buffers ${i}`);
    })();

    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    // A CONNECT behind it, whose socket node hands over to the server's own handler: the cut must
    // not become an uncaught error there.
    socket.write(`GET /plants HTTP/1.1\r\nHost: plantstore\r\nAuthorization: Bearer ${user.token}\r\n\r\nCONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n`);
    socket.pause(); // read nothing: the server's writes back up
    const checkpointBusy = () => (seed.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]?.busy;

    // Short of 30 s the reader is still served: its snapshot holds the WAL (busy, without waiting).
    await new Promise((resolve) => setTimeout(resolve, STALLED_READER_MS - SLACK_MS));
    seed.pragma('busy_timeout = 0');
    assert.equal(checkpointBusy(), 1, 'the snapshot is still open before the stalled reader is cut');
    seed.pragma('busy_timeout = 5000');

    // The server gave up on the reader: no snapshot is left, so a checkpoint moves the whole WAL.
    await new Promise((resolve) => setTimeout(resolve, 2 * SLACK_MS));
    const busy = checkpointBusy();
    seed.close();
    assert.equal(busy, 0, 'no snapshot is left open');

    // What the client can still read ends early: the answer was cut, not completed.
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.resume();
    await once(socket, 'close');
    assert.ok(received.startsWith('HTTP/1.1 200'), 'the list had started');
    assert.ok(!received.endsWith('\r\n0\r\n\r\n'), 'the list was cut off: its last chunk never came');
    assert.equal((await user.request('/plants?limit=1')).status, 200, 'the server serves on');
  });
});
