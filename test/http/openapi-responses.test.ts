/** Real responses from a running server, each checked against the OpenAPI document. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openApiDocument, type OpenApiDocument } from '../../src/http/openapi.js';
import type { ResponseObject } from '../../src/http/openapi/types.js';
import { assertMatchesOpenApi } from '../helpers/openapi-check.js';
import { startTestServer } from '../helpers/server.js';
import { call, mint, signingKey, startJwksServer, trustKeySet } from '../auth/jwt-fixtures.js';

describe('real responses match the document', () => {
  test('POST /plants: 200 created, 200 identical retry, 400, 401, 403, 409, 413, 415', async (t) => {
    const server = await startTestServer(t);
    const alice = await server.user();
    const reader = await server.user({ readOnly: true });
    const post = (init: RequestInit & { json?: unknown }, who = alice) => who.request('/plants', { method: 'POST', ...init });
    const check = async (response: Response, status: number) => {
      assert.equal(response.status, status);
      return assertMatchesOpenApi(response, 'POST', '/plants');
    };
    assert.deepEqual(await check(await post({ json: '{"id":9007199254740993,"name":"Fern","tag":"fern"}' }), 200), { name: 'Fern', tag: 'fern' });
    assert.deepEqual(await check(await post({ json: '{"id":9007199254740993,"name":"Fern","tag":"fern"}' }), 200), { name: 'Fern', tag: 'fern' });
    await check(await post({ json: '{"id":-1,"name":"Moss"}' }), 200);
    await check(await post({ json: '{"id":9007199254740993,"name":"Ivy"}' }), 409);
    await check(await post({ json: '{"id":1.5,"name":"Fern"}' }), 400);
    await check(await post({ json: '[]' }), 400);
    await check(await fetch(`${server.url}/plants`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }), 401);
    await check(await post({ json: { id: 2, name: 'x' }, headers: { authorization: 'Bearer pst_unknown' } }), 401);
    await check(await post({ json: { id: 2, name: 'x' } }, reader), 403);
    await check(await post({ body: '{"id":3,"name":"x"}', headers: { 'content-type': 'text/plain' } }), 415);
    await check(await post({ json: { id: 4, name: 'x', pad: 'x'.repeat(server.settings.bodyLimit) } }), 413);
  });

  test('GET /plants: 200 with and without limit, Link, HEAD, 400, 401, 403', async (t) => {
    const server = await startTestServer(t);
    const alice = await server.user();
    const reader = await server.user({ readOnly: true, name: alice.name });
    for (const id of [3, 1, 2]) await alice.request('/plants', { method: 'POST', json: { id, name: `Plant ${id}` } });
    const check = async (response: Response, status: number, method = 'GET') => {
      assert.equal(response.status, status);
      return assertMatchesOpenApi(response, method, '/plants');
    };
    const page = await alice.request('/plants?limit=2');
    assert.equal(page.headers.get('link'), '</plants?limit=2&after=2>; rel="next"');
    assert.deepEqual(await check(page, 200), [{ name: 'Plant 1' }, { name: 'Plant 2' }]);
    assert.equal((await check(await reader.request('/plants'), 200) as unknown[]).length, 3);
    await check(await alice.request('/plants?limit=0'), 200);
    await check(await alice.request('/plants', { method: 'HEAD' }), 200, 'HEAD');
    await check(await alice.request('/plants?limit=-1'), 400);
    await check(await alice.request('/plants?after=1e2'), 400);
    await check(await fetch(`${server.url}/plants`), 401);
    await check(await fetch(`${server.url}/plants`, { headers: { authorization: 'Basic YTpi' } }), 401);
    const writerOnly = await server.user();
    assert.equal((await check(await writerOnly.request('/plants'), 200) as unknown[]).length, 0);
    await check(await alice.request('/plants', { headers: { authorization: `Bearer ${alice.token}x` } }), 401);
    const noScope = await server.user({ readOnly: true });
    await check(await noScope.request('/plants', { method: 'POST', json: { id: 1, name: 'x' } }), 403, 'POST');
  });

  test('DELETE /plants/{id}: 204, 400, 401, 403, 404', async (t) => {
    const server = await startTestServer(t);
    const alice = await server.user();
    const reader = await server.user({ readOnly: true });
    await alice.request('/plants', { method: 'POST', json: { id: 7, name: 'Fern' } });
    const del = (path: string, who = alice) => who.request(path, { method: 'DELETE' });
    const check = async (response: Response, status: number) => {
      assert.equal(response.status, status);
      return assertMatchesOpenApi(response, 'DELETE');
    };
    await check(await del('/plants/7', reader), 403);
    assert.equal(await check(await del('/plants/7'), 204), undefined);
    await check(await del('/plants/7'), 404);
    await check(await del('/plants/seven'), 400);
    await check(await del('/plants/'), 400);
    await check(await fetch(`${server.url}/plants/7`, { method: 'DELETE' }), 401);
  });

  test('GET /plants/{id}: 200 (with and without fields), 400, 401, 404', async (t) => {
    const server = await startTestServer(t);
    const alice = await server.user();
    await alice.request('/plants', { method: 'POST', json: '{"id":9223372036854775807,"name":"Fern","tag":"x"}' });
    const check = async (response: Response, status: number) => {
      assert.equal(response.status, status);
      return assertMatchesOpenApi(response, 'GET');
    };
    await check(await alice.request('/plants/9223372036854775807'), 200);
    await check(await alice.request('/plants/9223372036854775807?fields=id'), 200);
    await check(await alice.request('/plants/8'), 404);
    await check(await alice.request('/plants/x'), 400);
    await check(await alice.request('/plants/8?fields=colour'), 400);
    await check(await fetch(`${server.url}/plants/8`), 401);
  });

  test('wrong methods get 405 with Allow, unknown paths 404, OPTIONS 204', async (t) => {
    const server = await startTestServer(t);
    const alice = await server.user();
    for (const [method, path] of [['PUT', '/plants'], ['PATCH', '/plants'], ['PATCH', '/plants/7'], ['POST', '/plants/7'], ['PUT', '/plants/'], ['POST', '/healthz'], ['DELETE', '/docs']]) {
      const response = await alice.request(path as string, { method });
      assert.equal(response.status, 405, `${method} ${path}`);
      await assertMatchesOpenApi(response, method as string);
    }
    for (const path of ['/nowhere', '/plants/7/leaves', '/docs/nothing.js']) {
      const response = await alice.request(path);
      assert.equal(response.status, 404, path);
      await assertMatchesOpenApi(response, 'GET');
    }
    const options = await fetch(`${server.url}/plants`, { method: 'OPTIONS' });
    assert.equal(options.status, 204);
    await assertMatchesOpenApi(options, 'OPTIONS');
  });

  test('public routes answer without a token as documented', async (t) => {
    const server = await startTestServer(t);
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/init.js', '/docs/favicon-32x32.png']) {
      const response = await fetch(server.url + path);
      assert.equal(response.status, 200, path);
      await assertMatchesOpenApi(response, 'GET');
    }
  });

  test('an identity provider that is down gives 503 with Retry-After on every /plants operation', async (t) => {
    const key = await signingKey('ES256');
    const jwks = await startJwksServer(t, [key]);
    await jwks.stop();
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url));
    const token = await mint(key);
    for (const [method, path] of [['POST', '/plants'], ['GET', '/plants'], ['DELETE', '/plants/1']] as const) {
      const response = await call(server.url, token, path, { method, json: method === 'POST' ? { id: 1, name: 'Fern' } : undefined });
      assert.equal(response.status, 503, `${method} ${path}`);
      await assertMatchesOpenApi(response, method);
    }
  });

  test('an unexpected failure (the store closed under the server) gives a documented 500', async (t) => {
    const server = await startTestServer(t);
    const alice = await server.user();
    await server.running.store.close();
    for (const [method, path] of [['POST', '/plants'], ['GET', '/plants'], ['DELETE', '/plants/1']] as const) {
      const response = await alice.request(path, { method, json: method === 'POST' ? { id: 1, name: 'Fern' } : undefined });
      assert.ok(response.status === 500 || response.status === 503, `${method} ${path} → ${response.status}`);
      await assertMatchesOpenApi(response, method);
    }
    const readiness = await fetch(`${server.url}/readyz`);
    assert.equal(readiness.status, 503, 'a database that cannot answer is "not ready", whatever the failure');
    await assertMatchesOpenApi(readiness, 'GET');
  });

  test('the 413 response names the BODY_LIMIT this server enforces', async (t) => {
    const server = await startTestServer(t, 'sqlite', { bodyLimit: '100' });
    const served = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    const tooLarge = served.paths['/plants']?.post?.responses['413'] as ResponseObject;
    assert.match(tooLarge.description, /100 bytes on this server/);
  });

  test('GET /openapi.json serves exactly the built document', async (t) => {
    const server = await startTestServer(t);
    const response = await fetch(`${server.url}/openapi.json`);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), JSON.parse(JSON.stringify(openApiDocument({ bodyLimit: server.settings.bodyLimit }))));
  });

  test('X-Request-Id: a sane value is echoed, another is replaced', async (t) => {
    const server = await startTestServer(t);
    const sane = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'trace-1.a:b_c' } });
    assert.equal(sane.headers.get('x-request-id'), 'trace-1.a:b_c');
    await assertMatchesOpenApi(sane, 'GET');
    const insane = await fetch(`${server.url}/plants`, { headers: { 'x-request-id': 'a b' } });
    assert.notEqual(insane.headers.get('x-request-id'), 'a b');
    await assertMatchesOpenApi(insane, 'GET');
  });
});
