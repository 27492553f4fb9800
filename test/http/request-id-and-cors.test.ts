/** X-Request-Id on every response, and CORS only for the origins listed in CORS_ORIGINS. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestServer, storeKinds } from '../helpers/server.js';
import { rawExchangeClosed } from '../helpers/raw-http.js';

const ORIGIN = 'https://app.example';
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-expose-headers', 'access-control-allow-credentials'];

function assertNoCors(response: Response, what: string): void {
  for (const name of CORS_HEADERS) assert.equal(response.headers.get(name), null, `${what}: ${name}`);
}

for (const kind of storeKinds()) {
  describe(`X-Request-Id on ${kind}`, () => {
    test('every response carries X-Request-Id (pages, streams, errors, every public route)', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const responses = [
        await user.request('/plants'),
        await user.request('/plants', { method: 'POST', json: '{"id":1,"name":"Fern"}' }),
        await user.request('/plants', { method: 'POST', json: '{"id":2,"name":"Moss"}' }),
        await user.request('/plants?limit=1'),
        await user.request('/plants?limit=0'),
        await user.request('/plants?limit=2000'),
        await user.request('/plants', { method: 'HEAD' }),
        await user.request('/plants?limit=1', { method: 'HEAD' }),
        await user.request('/plants', { method: 'OPTIONS' }),
        await user.request('/plants', { method: 'POST', json: '{"id":' }),
        await user.request('/plants', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }),
        await user.request('/plants/1', { method: 'DELETE' }),
        await user.request('/plants/1', { method: 'DELETE' }),
        await fetch(`${server.url}/plants`),
        await fetch(`${server.url}/nowhere`),
        await fetch(`${server.url}/plants`, { method: 'PUT' }),
        await fetch(`${server.url}/healthz`),
        await fetch(`${server.url}/readyz`),
        await fetch(`${server.url}/metrics`),
        await fetch(`${server.url}/openapi.json`),
        await fetch(`${server.url}/docs`),
        await fetch(`${server.url}/docs/init.js`),
        await fetch(`${server.url}/docs/nothing.js`),
      ];
      const statuses = responses.map((response) => response.status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 204, 400, 415, 204, 404, 401, 404, 405, 200, 200, 200, 200, 200, 200, 404]);
      await Promise.all(responses.map((response) => response.arrayBuffer()));
      const ids = responses.map((response) => response.headers.get('x-request-id'));
      for (const id of ids) assert.match(id ?? '', /^[A-Za-z0-9._:-]{1,128}$/);
      assert.equal(new Set(ids).size, ids.length, 'a fresh id per request');
    });

    test('a sane client value (^[A-Za-z0-9._:-]{1,128}$) is echoed', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      for (const id of ['abc-123', 'req.2026:11_26', 'x'.repeat(128), 'A']) {
        assert.equal((await user.request('/plants', { headers: { 'x-request-id': id } })).headers.get('x-request-id'), id);
        assert.equal((await fetch(`${server.url}/nowhere`, { headers: { 'x-request-id': id } })).headers.get('x-request-id'), id);
      }
    });

    test('an insane client value is replaced by a fresh id', async (t) => {
      const server = await startTestServer(t, kind);
      for (const id of ['x'.repeat(129), 'has space', 'semi;colon', '<script>', 'a/b', 'a=b', '', 'a,b']) {
        const answered = (await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': id } })).headers.get('x-request-id');
        assert.notEqual(answered, id);
        assert.match(answered ?? '', /^[A-Za-z0-9._:-]{1,128}$/);
      }
    });
  });

  describe(`CORS on ${kind}`, () => {
    test('no CORS headers by default, even for a preflight', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      assertNoCors(await user.request('/plants', { headers: { origin: ORIGIN } }), 'GET');
      const preflight = await fetch(`${server.url}/plants`, {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      assertNoCors(preflight, 'preflight');
    });

    test('CORS_ORIGINS takes a comma-separated list: each listed origin is allowed, others are not', async (t) => {
      const other = 'https://admin.example';
      const server = await startTestServer(t, kind, { corsOrigins: `${ORIGIN},${other}` });
      const user = await server.user();
      for (const origin of [ORIGIN, other]) {
        const response = await user.request('/plants', { headers: { origin } });
        assert.equal(response.headers.get('access-control-allow-origin'), origin, origin);
      }
      assertNoCors(await user.request('/plants', { headers: { origin: 'https://evil.example' } }), 'unlisted origin');
    });

    test('an allowed origin (CORS_ORIGINS) gets CORS headers on responses, errors included', async (t) => {
      const server = await startTestServer(t, kind, { corsOrigins: ORIGIN });
      const user = await server.user();
      const ok = await user.request('/plants', { headers: { origin: ORIGIN } });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('access-control-allow-origin'), ORIGIN);
      assert.match(ok.headers.get('vary') ?? '', /origin/i);
      const exposed = (ok.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
      assert.deepEqual(exposed.sort(), ['link', 'location', 'ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate', 'x-request-id']);
      const unauthorized = await fetch(`${server.url}/plants`, { headers: { origin: ORIGIN } });
      assert.equal(unauthorized.status, 401);
      assert.equal(unauthorized.headers.get('access-control-allow-origin'), ORIGIN);
      // A page goes out through one writeHead: the CORS headers set before it stay, nothing doubles.
      for (const id of [1, 2]) await user.request('/plants', { method: 'POST', json: `{"id":${id},"name":"Fern"}` });
      const page = await user.request('/plants?limit=1', { headers: { origin: ORIGIN } });
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('access-control-allow-origin'), ORIGIN);
      assert.match(page.headers.get('vary') ?? '', /origin/i);
      assert.equal(page.headers.get('link'), '</plants?limit=1&after=1>; rel="next"');
      assert.match(page.headers.get('x-request-id') ?? '', /^[A-Za-z0-9._:-]{1,128}$/, 'one X-Request-Id, not two joined');
      assert.equal(page.headers.get('content-type'), 'application/json');
      // Refusals before the route's own checks carry them too.
      const twoTokens = await rawExchangeClosed(
        server.url,
        `GET /plants HTTP/1.1\r\nHost: x\r\nOrigin: ${ORIGIN}\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n`,
      );
      assert.match(twoTokens, /^HTTP\/1\.1 400 /);
      assert.match(twoTokens, new RegExp(`\r\naccess-control-allow-origin: ${ORIGIN}\r\n`, 'i'));
      assert.match(twoTokens, /\r\nvary: Origin\r\n/i);
    });

    test('a preflight from an allowed origin works without a token', async (t) => {
      const server = await startTestServer(t, kind, { corsOrigins: ORIGIN });
      const preflight = await fetch(`${server.url}/plants`, {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      assert.ok(preflight.status === 204 || preflight.status === 200, `status ${preflight.status}`);
      assert.equal(preflight.headers.get('access-control-allow-origin'), ORIGIN);
      const methods = (preflight.headers.get('access-control-allow-methods') ?? '').split(/,\s*/);
      assert.ok(methods.includes('POST') && methods.includes('GET'), `methods ${methods.join(', ')}`);
      const headers = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      assert.ok(headers.includes('authorization') && headers.includes('content-type'), `headers ${headers}`);
      const item = await fetch(`${server.url}/plants/7`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE' } });
      assert.ok((item.headers.get('access-control-allow-methods') ?? '').includes('DELETE'));
      const nowhere = await fetch(`${server.url}/nowhere`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
      assert.equal(nowhere.status, 404);
      assert.equal(nowhere.headers.get('access-control-allow-methods'), null, 'no empty list of methods for a path that does not exist');
    });

    test('other origins get no CORS headers', async (t) => {
      const server = await startTestServer(t, kind, { corsOrigins: ORIGIN });
      const user = await server.user();
      for (const origin of ['https://evil.example', 'http://app.example', 'https://app.example.evil', 'null']) {
        assertNoCors(await user.request('/plants', { headers: { origin } }), origin);
        const preflight = await fetch(`${server.url}/plants`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
        assertNoCors(preflight, `preflight ${origin}`);
      }
    });

    test('with CORS configured, responses vary by Origin even for other origins', async (t) => {
      const server = await startTestServer(t, kind, { corsOrigins: ORIGIN });
      const user = await server.user();
      for (const headers of [{ origin: 'https://evil.example' }, {}] as Record<string, string>[]) {
        assert.match((await user.request('/plants', { headers })).headers.get('vary') ?? '', /origin/i);
      }
    });
  });
}
