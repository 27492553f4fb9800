/**
 * `Expect: 100-continue`: the server says "continue" only to a request it will read the body
 * of, so a client with a bad token or a body over the limit never sends that body.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { rawExchange } from '../helpers/raw-http.js';
import { startTestServer, storeKinds } from '../helpers/server.js';

interface Outcome {
  status: number;
  body: string;
  continued: boolean;
}

/** POSTs `body` the way curl does for large bodies: headers first, the body only after 100 Continue. */
function postExpectingContinue(url: string, token: string, body: string, contentLength = Buffer.byteLength(body)): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = request(`${url}/plants`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': String(contentLength),
        expect: '100-continue',
      },
    });
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: text, continued });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

for (const kind of storeKinds()) {
  describe(`Expect: 100-continue on ${kind}`, () => {
    test('a valid token gets 100 Continue, then sends its body and gets the plant', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const outcome = await postExpectingContinue(server.url, user.token, '{"id":7,"name":"Fern"}');
      assert.deepEqual(outcome, { status: 200, body: '{"name":"Fern"}', continued: true });
    });

    test('an unknown token gets 401 without 100 Continue', async (t) => {
      const server = await startTestServer(t, kind);
      const outcome = await postExpectingContinue(server.url, `pst_${'A'.repeat(43)}`, '{"id":7,"name":"Fern"}');
      assert.equal(outcome.status, 401);
      assert.equal(outcome.continued, false);
    });

    test('a token revoked since the server accepted it gets 401 without 100 Continue, its body unread', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      assert.equal((await user.request('/plants')).status, 200);
      const [record] = (await server.running.store.listTokens()).filter((token) => token.user === user.name);
      assert.ok(record !== undefined);
      assert.equal(await server.running.store.revokeToken(record.id, new Date()), true);
      const outcome = await postExpectingContinue(server.url, user.token, '{"id":7,"name":"Fern"}');
      assert.equal(outcome.status, 401);
      assert.equal(outcome.continued, false);
    });

    test('a Content-Length over BODY_LIMIT gets 413 without 100 Continue', async (t) => {
      const server = await startTestServer(t, kind, { bodyLimit: '64' });
      const user = await server.user();
      const outcome = await postExpectingContinue(server.url, user.token, '{}', 65);
      assert.equal(outcome.status, 413);
      assert.equal(outcome.continued, false);
      assert.equal((await (await user.request('/plants')).json() as unknown[]).length, 0);
    });

    test('an HTTP/1.0 request gets no 100 Continue, which it would take for the response (RFC 9110 §10.1.1)', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const body = '{"id":7,"name":"Fern"}';
      const answer = await rawExchange(
        server.url,
        `POST /plants HTTP/1.0\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n${body}`,
      );
      assert.match(answer, /^HTTP\/1\.1 200 /, answer);
      assert.doesNotMatch(answer, / 100 Continue/);
    });

    test('an Expect that names 100-continue among others, or twice, gets 417 and its body is not read', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const body = '{"id":7,"name":"Fern"}';
      for (const expect of ['Expect: 100-continue, foo\r\n', 'Expect: 100-continue\r\nExpect: 100-continue\r\n']) {
        const answer = await rawExchange(
          server.url,
          `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${expect}\r\n${body}`,
        );
        assert.match(answer, /^HTTP\/1\.1 417 /, expect);
        assert.match(answer, /"error":417/);
      }
      assert.equal((await user.request('/plants/7')).status, 404);
    });
  });
}
