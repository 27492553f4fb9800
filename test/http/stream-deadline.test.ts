/**
 * STREAM_DEADLINE cuts a streamed list that is still running, however steadily its client
 * reads (the no-progress cut would never fire for a trickle), and frees the owner's slot.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { startTestServer } from '../helpers/server.js';

const PLANTS = 40_000;
/** About 8 MB of JSON in all: more than the socket buffers hold, so the stream is still running at the deadline. */
const NAME = 'a plant with a name long enough to fill the socket buffers '.repeat(3);

describe('STREAM_DEADLINE', () => {
  test('a trickling reader is cut at the deadline, and the owner may stream again', { timeout: 60_000 }, async (t) => {
    const lines: string[] = [];
    const server = await startTestServer(t, 'sqlite', { streamDeadlineMs: '2s', streamsPerOwner: '1' }, pino({ level: 'info' }, { write: (line: string) => lines.push(line) }));
    const user = await server.user();
    const seed = new Database(server.settings.databaseUrl.slice('sqlite:'.length));
    const insert = seed.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, NULL)');
    seed.transaction(() => {
      for (let i = 0; i < PLANTS; i++) insert.run(user.name, i, `${NAME}${i}`);
    })();
    seed.close();

    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    await once(socket, 'connect');
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

    // The server cuts the stream at the deadline: its access line says so, with its status and
    // duration (not 499, which would say the client left), and the owner's slot is free again.
    const cutLine = async () => {
      for (;;) {
        const found = lines.map((line) => JSON.parse(line) as { msg: string; status?: number; cut?: string; ms?: number }).find((line) => line.msg === 'request' && line.cut !== undefined);
        if (found !== undefined) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const logged = await cutLine();
    assert.deepEqual([logged.status, logged.cut], [200, 'STREAM_DEADLINE passed']);
    assert.ok((logged.ms ?? 0) >= 1900 && (logged.ms ?? 0) < 5000, `cut after ${logged.ms} ms`);
    const whole = await user.request('/plants');
    assert.equal(whole.status, 200, 'the slot was given back');
    assert.equal(((await whole.json()) as unknown[]).length, PLANTS);

    // The reader gets what was in the socket buffers, and then the end of a list cut short.
    await once(socket, 'close');
    assert.ok(received.startsWith('HTTP/1.1 200'), 'the list had started');
    assert.ok(!received.endsWith('\r\n0\r\n\r\n'), 'the list was cut off: its last chunk never came');
    assert.ok(received.split(NAME).length - 1 < PLANTS, 'fewer plants than the owner has');
  });
});
