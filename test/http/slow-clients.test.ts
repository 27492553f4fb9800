/**
 * Slow clients (API.md, Fine points): headers not complete within 30 s → closed; a body not
 * complete within 30 s → 408 or closed; neither holds up other clients. These tests wait the
 * real 30 seconds (the limit is not a setting), both stalls at once.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { startTestServer, storeKinds } from '../helpers/server.js';

const LIMIT_MS = 30_000;
const SLACK_MS = 3_000;

/** Opens a connection, sends `head` and never more; resolves with what came back and when the server closed it. */
function stall(baseUrl: string, head: string): Promise<{ afterMs: number; answer: string }> {
  const { hostname, port } = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ afterMs: Date.now() - started, answer }));
    socket.write(head);
  });
}

for (const kind of storeKinds()) {
  describe(`slow clients on ${kind}`, () => {
    test('headers not complete within 30 s → closed; a body not complete within 30 s → 408 or closed; others are served meanwhile', { timeout: 3 * LIMIT_MS }, async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const slowHeaders = stall(server.url, 'GET /plants HTTP/1.1\r\nHost: plantstore\r\n');
      const slowBody = stall(
        server.url,
        `POST /plants HTTP/1.1\r\nHost: plantstore\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":1`,
      );
      const meanwhile = await user.request('/plants');
      assert.equal(meanwhile.status, 200, 'another client is served while two connections stall');
      const [headers, body] = await Promise.all([slowHeaders, slowBody]);
      for (const [what, { afterMs }] of [['headers', headers], ['body', body]] as const) {
        assert.ok(afterMs >= LIMIT_MS - SLACK_MS && afterMs <= LIMIT_MS + SLACK_MS, `stalled ${what} closed after ${afterMs} ms`);
      }
      assert.ok(body.answer === '' || /^HTTP\/1\.1 408 /.test(body.answer), `stalled body answered ${JSON.stringify(body.answer.slice(0, 40))}`);
      assert.deepEqual(await (await user.request('/plants')).json(), [], 'the stalled create stored nothing');
    });
  });
}
