/**
 * Every case the property-based fuzz (fuzz.test.ts) ever found, kept as a plain test so that it
 * stays fixed whatever the fuzz generates next. docs/fuzzing.md lists them with their causes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rawExchangeClosed } from '../helpers/raw-http.js';
import { startTestServer, storeKinds } from '../helpers/server.js';

/** Parses a raw HTTP/1.1 answer into its status, headers and body. */
function parseAnswer(answer: string): { status: number; headers: Map<string, string>; body: string } {
  const end = answer.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = answer.slice(0, end).split('\r\n');
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: answer.slice(end + 4) };
}

/** A raw answer that must be the Error shape with this status, and close the connection. */
function assertRawError(answer: string, status: number, what: string): void {
  const parsed = parseAnswer(answer);
  assert.equal(parsed.status, status, `${what}: ${JSON.stringify(answer.slice(0, 80))}`);
  assert.match(parsed.headers.get('content-type') ?? '', /^application\/json/, what);
  assert.equal(parsed.headers.get('x-content-type-options'), 'nosniff', what);
  assert.ok((parsed.headers.get('x-request-id') ?? '') !== '', `${what}: X-Request-Id`);
  const body = JSON.parse(parsed.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], what);
  assert.equal(body.error, status, what);
  assert.equal(typeof body.message, 'string', what);
}

for (const kind of storeKinds()) {
  describe(`cases the fuzz found, on ${kind}`, () => {
    test('DELETE answers 204 with X-Content-Type-Options: nosniff like every other answer', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      assert.equal((await user.request('/plants', { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 200);
      const response = await user.request('/plants/1', { method: 'DELETE' });
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('cache-control'), 'no-store');
    });

    test('OPTIONS answers 204 with Cache-Control: no-store like every other API answer', async (t) => {
      const server = await startTestServer(t, kind);
      for (const path of ['/plants', '/plants/7']) {
        const response = await fetch(server.url + path, { method: 'OPTIONS' });
        assert.equal(response.status, 204);
        assert.equal(response.headers.get('cache-control'), 'no-store', path);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      }
    });

    test('GET /plants?tag=%00 and other tags no plant can have → 200 [] (PostgreSQL text cannot hold NUL; SQLite answers the same)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      assert.equal((await user.request('/plants', { method: 'POST', json: { id: 1, name: 'Fern', tag: 'x'.repeat(64) } })).status, 200);
      for (const tag of ['%00', 'a%00b', '%1F', '%7F', 'x'.repeat(65), '%20%20', '%E2%80%83']) {
        for (const query of [`tag=${tag}`, `tag=${tag}&limit=5`, `tag=${tag}&limit=5000`]) {
          const response = await user.request(`/plants?${query}`);
          assert.equal(response.status, 200, query);
          assert.equal(response.headers.get('link'), null, query);
          assert.equal(await response.text(), '[]', query);
        }
      }
      const fine = await user.request(`/plants?tag=${'x'.repeat(64)}`);
      assert.equal(fine.status, 200);
      assert.equal(await fine.text(), `[{"name":"Fern","tag":"${'x'.repeat(64)}"}]`);
    });

    test('a header line without a colon → 400 Error body, not a bare 400', async (t) => {
      const server = await startTestServer(t, kind);
      const answer = await rawExchangeClosed(server.url, 'GET /plants HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n');
      assertRawError(answer, 400, 'bad header');
    });

    test('a request line that is not HTTP → 400 Error body', async (t) => {
      const server = await startTestServer(t, kind);
      assertRawError(await rawExchangeClosed(server.url, 'GARBAGE\r\n\r\n'), 400, 'garbage');
      assertRawError(await rawExchangeClosed(server.url, 'GET /plants HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'), 400, 'two lengths');
    });

    test('a body sent without Content-Length: the request is answered, then the stray bytes get a 400 Error', async (t) => {
      const server = await startTestServer(t, kind);
      const answer = await rawExchangeClosed(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n{}');
      const second = answer.indexOf('HTTP/1.1 400');
      assert.match(answer, /^HTTP\/1\.1 200 /, JSON.stringify(answer.slice(0, 80)));
      assert.ok(second > 0, JSON.stringify(answer));
      assertRawError(answer.slice(second), 400, 'stray bytes');
    });

    test('Transfer-Encoding other than chunked → 400 Error body (RFC 9112 §6.3), not a dropped connection', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const head = (method: string) => `${method} /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n`;
      assertRawError(await rawExchangeClosed(server.url, head('GET')), 400, 'GET');
      assertRawError(await rawExchangeClosed(server.url, `${head('POST')}{"id":1,"name":"Fern"}`), 400, 'POST');
      assert.equal(await (await user.request('/plants')).text(), '[]');
    });

    test('CONNECT → 400 Error body (plantstore is no proxy), not a dropped connection', async (t) => {
      const server = await startTestServer(t, kind);
      const answer = await rawExchangeClosed(server.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
      assertRawError(answer, 400, 'CONNECT');
    });

    test('an Expect other than 100-continue → 417 Error body, not a bare 417, with the client’s X-Request-Id', async (t) => {
      const server = await startTestServer(t, kind);
      const answer = await rawExchangeClosed(server.url, 'GET /plants HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nX-Request-Id: trace-417\r\n\r\n');
      assertRawError(answer, 417, 'Expect');
      assert.match(answer, /^x-request-id: trace-417\r$/im);
    });

    test('headers larger than the parser accepts → 431 Error body', async (t) => {
      const server = await startTestServer(t, kind);
      const answer = await rawExchangeClosed(server.url, `GET /plants HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`);
      assertRawError(answer, 431, 'header overflow');
    });

    test('an HTTP/1.1 request without Host → 400 Error body; HTTP/1.0 needs none', async (t) => {
      const server = await startTestServer(t, kind);
      const missing = await rawExchangeClosed(server.url, 'GET /plants HTTP/1.1\r\n\r\n');
      assertRawError(missing, 400, 'missing Host');
      assert.match(JSON.parse(parseAnswer(missing).body).message as string, /Host/);
      const old = parseAnswer(await rawExchangeClosed(server.url, 'GET /healthz HTTP/1.0\r\n\r\n'));
      assert.equal(old.status, 200);
    });

    test('two Authorization or two Content-Type lines → 400 Error body naming the header, before any other check', async (t) => {
      const server = await startTestServer(t, kind);
      const { token } = await server.user();
      const auth = `Authorization: Bearer ${token}`;
      const cases = [
        ['GET /plants', `${auth}\r\nAuthorization: Bearer pst_other`, /more than one Authorization header/],
        ['GET /no-such-path', `${auth}\r\nauthorization: Bearer ${token}`, /more than one Authorization header/],
        ['POST /plants', `${auth}\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: 2`, /more than one Content-Type header/],
      ] as const;
      for (const [line, headers, message] of cases) {
        const answer = await rawExchangeClosed(server.url, `${line} HTTP/1.1\r\nHost: x\r\n${headers}\r\n\r\n{}`);
        assertRawError(answer, 400, `${line} with ${headers}`);
        assert.match(JSON.parse(parseAnswer(answer).body).message as string, message);
      }
      const one = parseAnswer(await rawExchangeClosed(server.url, `GET /plants HTTP/1.1\r\nHost: x\r\n${auth}\r\nConnection: close\r\n\r\n`));
      assert.equal(one.status, 200, 'one of each is fine');
    });

    test('a request with two Host lines → 400 Error body, even when they agree', async (t) => {
      const server = await startTestServer(t, kind);
      for (const hosts of ['Host: a\r\nHost: b', 'Host: a\r\nhost: a']) {
        const answer = await rawExchangeClosed(server.url, `GET /healthz HTTP/1.1\r\n${hosts}\r\n\r\n`);
        assertRawError(answer, 400, hosts);
        assert.match(JSON.parse(parseAnswer(answer).body).message as string, /exactly one Host/);
      }
    });
  });
}
