/**
 * STREAM_DEADLINE cuts a streamed list that is still running, however steadily its client
 * reads (the no-progress cut would never fire for a trickle), and frees the owner's slot.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { startTestServer } from '../helpers/server.js';

const PLANTS = 40_000;

describe('STREAM_DEADLINE', () => {
  test('a trickling reader is cut at the deadline, and the owner may stream again', { timeout: 30_000 }, async (t) => {
    const server = await startTestServer(t, 'sqlite', { streamDeadlineMs: '2s', streamsPerOwner: '1' });
    const user = await server.user();
    const seed = new Database(server.settings.databaseUrl.slice('sqlite:'.length));
    const insert = seed.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, NULL)');
    seed.transaction(() => {
      for (let i = 0; i < PLANTS; i++) insert.run(user.name, i, `a plant with a name long enough to fill buffers ${i}`);
    })();
    seed.close();

    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    const started = performance.now();
    socket.write(`GET /plants HTTP/1.1\r\nHost: plantstore\r\nAuthorization: Bearer ${user.token}\r\n\r\n`);
    let received = '';
    socket.setEncoding('utf8');
    // A trickle: a little every 200 ms, so the stream always makes progress.
    socket.on('data', (chunk: string) => {
      received += chunk;
      socket.pause();
      setTimeout(() => socket.resume(), 200);
    });
    assert.equal((await user.request('/plants')).status, 429, 'the one stream the owner may have is open');
    await once(socket, 'close');
    const seconds = (performance.now() - started) / 1000;
    assert.ok(received.startsWith('HTTP/1.1 200'), 'the list had started');
    assert.ok(!received.trimEnd().endsWith(']'), 'the list was cut off before its end');
    assert.ok(seconds >= 1.9 && seconds < 10, `cut after ${seconds.toFixed(1)} s`);
    const again = await user.request('/plants?limit=1');
    assert.equal(again.status, 200);
    await again.arrayBuffer();
    const whole = await user.request('/plants');
    assert.equal(whole.status, 200, 'the slot was given back');
    assert.equal(((await whole.json()) as unknown[]).length, PLANTS);
  });
});
