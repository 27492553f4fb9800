/** The request body of POST /plants: one JSON object, UTF-8, size limit, media type, duplicate keys. */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { issueToken } from '../../src/auth/api-tokens.js';
import { startServer } from '../../src/server.js';
import { loadSettings } from '../../src/settings.js';
import { assertError } from '../helpers/assertions.js';
import { rawExchangeClosed } from '../helpers/raw-http.js';
import { startTestServer, storeKinds, tempDir, uniqueName, type TestUser } from '../helpers/server.js';

/** POSTs raw bytes with exactly the given headers (fetch adds no Content-Type for bytes). */
function postBytes(user: TestUser, body: Uint8Array, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Response> {
  return user.request('/plants', { method: 'POST', body, headers });
}

async function listed(user: TestUser): Promise<unknown> {
  return (await user.request('/plants')).json();
}

/** Sends a chunked body (no Content-Length) through node:http and resolves with status and body text. */
function postChunked(url: string, token: string, chunks: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

const FERN = Buffer.from('{"id":1,"name":"Fern"}');

for (const kind of storeKinds()) {
  describe(`POST /plants request body on ${kind}`, () => {
    test('body not JSON → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const body of ['{id:1,name:"Fern"}', "{'id':1}", '{"id":1,"name":"Fern"', '{"id":1,"name":"Fern"}x', '{"id":1,"name":"Fern",}', 'NaN', ' ']) {
        await assertError(await user.request('/plants', { method: 'POST', json: body }), 400);
      }
      assert.deepEqual(await listed(user), []);
    });

    test('body a JSON array or a scalar → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const body of ['[{"id":1,"name":"Fern"}]', '[]', '7', '"Fern"', 'null', 'true']) {
        await assertError(await user.request('/plants', { method: 'POST', json: body }), 400);
      }
    });

    test('a byte order mark before the JSON → 400: it is not JSON, and nothing is stored', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await assertError(await postBytes(user, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":1,"name":"Fern"}')])), 400);
      assert.deepEqual(await listed(user), []);
    });

    test('empty body → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await assertError(await postBytes(user, new Uint8Array(0)), 400);
      await assertError(await user.request('/plants', { method: 'POST', headers: { 'content-type': 'application/json' } }), 400);
    });

    test('duplicate keys in the JSON object → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const body of ['{"id":1,"name":"Fern","name":"Fern"}', '{"id":1,"id":2,"name":"Fern"}', '{"id":1,"name":"Fern","tag":"a","tag":"a"}', '{"id":1,"name":"Fern","x":1,"x":2}']) {
        await assertError(await user.request('/plants', { method: 'POST', json: body }), 400);
      }
      assert.deepEqual(await listed(user), []);
    });

    test('duplicate keys are compared after unescaping ("n\\u0061me" duplicates "name") → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await assertError(await user.request('/plants', { method: 'POST', json: '{"id":1,"name":"Fern","n\\u0061me":"Ivy"}' }), 400);
      await assertError(await user.request('/plants', { method: 'POST', json: '{"\\u0069d":1,"id":1,"name":"Fern"}' }), 400);
      assert.deepEqual(await listed(user), []);
    });

    test('an escaped key counts as its unescaped name', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const response = await user.request('/plants', { method: 'POST', json: '{"\\u0069d":1,"n\\u0061me":"F\\u00e9rn \\ud83c\\udf3f"}' });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { name: 'Férn \u{1F33F}' });
    });

    test('invalid UTF-8 bytes → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const bodies = [
        Buffer.concat([Buffer.from('{"id":1,"name":"F'), Buffer.from([0xff]), Buffer.from('rn"}')]),
        Buffer.concat([Buffer.from('{"id":1,"name":"F'), Buffer.from([0xc3]), Buffer.from('"}')]),
        Buffer.concat([Buffer.from('{"id":1,"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), // an encoded surrogate
        Buffer.concat([Buffer.from('{"id":1,"name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), // overlong
      ];
      for (const body of bodies) await assertError(await postBytes(user, body), 400);
      assert.deepEqual(await listed(user), []);
    });

    test('a lone surrogate escape in name or tag → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const body of ['{"id":1,"name":"\\ud83c"}', '{"id":1,"name":"a\\udf3fb"}', '{"id":1,"name":"Fern","tag":"\\ud800"}', '{"id":1,"name":"\\udf3f\\ud83c"}']) {
        await assertError(await user.request('/plants', { method: 'POST', json: body }), 400);
      }
      assert.deepEqual(await listed(user), []);
    });

    test('a UTF-8 name is stored and returned as sent', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const name = 'Monstera 🌿 日本 ñ';
      const response = await postBytes(user, Buffer.from(JSON.stringify({ id: 1, name })));
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { name });
      assert.deepEqual(await listed(user), [{ name }]);
    });

    test('body over 16 KiB → 413', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const padding = 'x'.repeat(16 * 1024);
      await assertError(await user.request('/plants', { method: 'POST', json: `{"id":1,"name":"Fern","pad":"${padding}"}` }), 413);
      assert.deepEqual(await listed(user), []);
    });

    test('body of exactly 16 KiB is accepted', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const head = '{"id":1,"name":"Fern","pad":"';
      const body = head + 'x'.repeat(16384 - head.length - 2) + '"}';
      assert.equal(Buffer.byteLength(body), 16384);
      assert.equal((await user.request('/plants', { method: 'POST', json: body })).status, 200);
    });

    test('chunked body over the limit (no Content-Length) → 413', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const chunks = [Buffer.from('{"id":1,"name":"Fern","pad":"'), ...Array.from({ length: 5 }, () => Buffer.alloc(4096, 'x')), Buffer.from('"}')];
      const response = await postChunked(server.url, user.token, chunks);
      assert.equal(response.status, 413);
      assert.equal((JSON.parse(response.body) as { error: number }).error, 413);
      assert.deepEqual(await listed(user), []);
    });

    test('BODY_LIMIT overrides the 16 KiB limit', async (t) => {
      const user = await (await startTestServer(t, kind, { bodyLimit: '100' })).user();
      const small = JSON.stringify({ id: 1, name: 'x'.repeat(60) });
      const large = JSON.stringify({ id: 2, name: 'x'.repeat(90) });
      assert.ok(Buffer.byteLength(small) <= 100 && Buffer.byteLength(large) > 100);
      assert.equal((await user.request('/plants', { method: 'POST', json: small })).status, 200);
      await assertError(await user.request('/plants', { method: 'POST', json: large }), 413);
    });

    test('Content-Type missing → 415', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await assertError(await postBytes(user, FERN, {}), 415);
      assert.deepEqual(await listed(user), []);
    });

    test('Content-Type text/plain, application/merge-patch+json and others → 415', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/merge-patch+json', 'application/x-www-form-urlencoded', 'application/jsonx', 'json', '']) {
        await assertError(await postBytes(user, FERN, { 'content-type': type }), 415);
      }
      assert.deepEqual(await listed(user), []);
    });

    test('a charset other than UTF-8, or two charsets → 415 (the body would be misread)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const types = ['application/json; charset=utf-16', 'application/json; charset=ISO-8859-1', 'application/json;charset="windows-1252"', 'application/json; charset=utf-8; charset=latin1', 'application/json; charset=latin1; Charset=utf-8'];
      for (const type of types) {
        await assertError(await postBytes(user, FERN, { 'content-type': type }), 415);
      }
      assert.deepEqual(await listed(user), []);
    });

    test('Content-Type compared case-insensitively, parameters allowed: Application/JSON; charset=utf-8 → 200', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const types = ['Application/JSON; charset=utf-8', 'application/json;charset=UTF-8', 'APPLICATION/JSON', 'application/json; charset="utf-8"', 'application/json; foo=bar'];
      // US-ASCII bytes are UTF-8; a `;` or `charset=` inside a quoted value of another parameter is that value's.
      types.push('application/json; charset=us-ascii', 'application/json; x="a; charset=latin1"', 'application/json; x="\\"; charset=latin1"; charset=utf-8');
      for (const [i, type] of types.entries()) {
        const response = await postBytes(user, Buffer.from(`{"id":${i},"name":"Fern"}`), { 'content-type': type });
        assert.equal(response.status, 200, type);
      }
    });

    test('a compressed body (Content-Encoding other than identity) → 415', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const gzipped = gzipSync(FERN);
      for (const encoding of ['gzip', 'br', 'deflate, gzip']) {
        await assertError(await postBytes(user, gzipped, { 'content-type': 'application/json', 'content-encoding': encoding }), 415);
      }
      const identity = await postBytes(user, FERN, { 'content-type': 'application/json', 'content-encoding': 'identity' });
      assert.equal(identity.status, 200);
    });

    test('a transfer coding other than chunked alone → 415, the plant not stored; chunked alone is read', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const chunkedPost = (coding: string, body: string) =>
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
      for (const coding of ['gzip, chunked', 'x-foo, chunked', 'identity, chunked']) {
        const response = await rawExchangeClosed(server.url, chunkedPost(coding, '{"id":51,"name":"Fern"}'));
        assert.match(response, /^HTTP\/1\.1 415 /, coding);
        assert.match(response, /Transfer-Encoding: chunked alone/, coding);
      }
      assert.equal((await user.request('/plants/51')).status, 404);
      assert.match(await rawExchangeClosed(server.url, chunkedPost('Chunked', '{"id":52,"name":"Fern"}')), /^HTTP\/1\.1 200 /);
    });

    test('nesting deeper than the parser allows → 400, not a crash', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const deep = `{"id":1,"name":"Fern","x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      await assertError(await user.request('/plants', { method: 'POST', json: deep }), 400);
      assert.equal((await user.request('/healthz')).status, 200);
    });

    test('a client that hangs up in the middle of its body is not logged or counted as a server failure', async (t) => {
      const lines: string[] = [];
      let requestLogged = () => {};
      const logged = new Promise<void>((resolve) => (requestLogged = resolve));
      const logger = pino({ level: 'info' }, {
        write: (line: string) => {
          lines.push(line);
          if (line.includes('"msg":"request"')) requestLogged();
        },
      });
      const databaseUrl = kind === 'postgres' ? (process.env.TEST_DATABASE_URL as string) : `sqlite:${join(tempDir(t), 'plantstore.db')}`;
      const running = await startServer(loadSettings({}, { port: '0', databaseUrl, bootstrapToken: 'false' }), { logger });
      t.after(() => running.close());
      const issued = await issueToken(running.store, { user: uniqueName('leaver') });
      assert.ok(issued !== undefined);
      const { hostname, port } = new URL(running.url);
      const socket = connect(Number(port), hostname, () => {
        socket.write(`POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${issued.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":1`);
        // Hang up while the server waits for the rest of the body (it sends nothing to wait for).
        setTimeout(() => socket.destroy(), 50);
      });
      await logged;
      const metrics = await (await fetch(`${running.url}/metrics`)).text();
      const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string; status?: number });
      assert.deepEqual(records.filter((record) => record.level >= 50), [], 'no error-level line');
      assert.ok(records.some((record) => record.msg === 'request' && record.status === 499), 'the request is logged as 499');
      assert.match(metrics, /plantstore_http_requests_total\{[^}]*route="\/plants"[^}]*method="POST"[^}]*status="499"[^}]*\} 1/);
      assert.doesNotMatch(metrics, /status="500"/);
      assert.deepEqual(await (await fetch(`${running.url}/plants`, { headers: { authorization: `Bearer ${issued.token}` } })).json(), []);
    });
  });
}
