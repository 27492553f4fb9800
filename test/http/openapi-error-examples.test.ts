/**
 * The Error examples of the document: each status shows its own, each matches the document,
 * and each is the very body the server answers for the request its summary names.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { openApiDocument } from '../../src/http/openapi.js';
import type { ErrorExample } from '../../src/http/openapi/error-examples.js';
import type { Reference, ResponseObject } from '../../src/http/openapi/types.js';
import { openApiProblems } from '../helpers/openapi-check.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const BODY_LIMIT = 1024;
/** Requests per owner per minute: enough for the two creates of the 409, and no more. */
const RATE = 2;
const doc = openApiDocument({ bodyLimit: BODY_LIMIT });

function deref(value: ResponseObject | Reference): ResponseObject {
  if (!('$ref' in value)) return value;
  const name = value.$ref.split('/').pop() as string;
  return doc.components.responses[name] as ResponseObject;
}

interface Documented {
  method: string;
  path: string;
  status: number;
  name: string;
  example: ErrorExample;
}

/** Every Error example of every operation, by method, path template, status and name. */
function documentedExamples(): Documented[] {
  const found: Documented[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'delete'] as const) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        if (Number(status) < 400) continue;
        const examples = deref(response).content?.['application/json']?.examples ?? {};
        assert.ok(Object.keys(examples).length > 0, `${method.toUpperCase()} ${path} ${status} has an example`);
        for (const [name, example] of Object.entries(examples)) {
          found.push({ method: method.toUpperCase(), path, status: Number(status), name, example: example as ErrorExample });
        }
      }
    }
  }
  return found;
}

const text = (body: string) => ({ body, headers: { 'content-type': 'application/json' } });

/** A create sent with `Transfer-Encoding: gzip, chunked` (fetch refuses to set that header). */
async function transferCodedCreate(s: TestServer): Promise<Response> {
  const { token } = await s.user();
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'transfer-encoding': 'gzip, chunked' };
    const req = httpRequest(`${s.url}/plants`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: { 'content-type': res.headers['content-type'] ?? '' } })));
    });
    req.on('error', reject);
    req.end('{"id":7,"name":"Fern"}');
  });
}

/**
 * The request that provokes each example, by "<status> <name>"; a request for a path with
 * {id} uses 7. Left out only what this process cannot provoke: a token that has no
 * plants:read (only a JWT can lack it), an unexpected failure, and a database that is down.
 */
const PROVOKE: Record<string, (server: TestServer, method: string, path: string) => Promise<Response>> = {
  '400 missingName': async (s) => (await s.user()).request('/plants', { method: 'POST', ...text('{"id":7}') }),
  '400 fractionId': async (s) => (await s.user()).request('/plants', { method: 'POST', ...text('{"id":7.5,"name":"Fern"}') }),
  '400 badLimit': async (s) => (await s.user()).request('/plants?limit=-1'),
  '400 unknownParameter': async (s) => (await s.user()).request('/plants?sort=name'),
  '400 badId': async (s, method) => (await s.user()).request('/plants/seven', { method }),
  '401 missing': async (s, method, path) => fetch(s.url + path.replace('{id}', '7'), { method }),
  '401 invalid': async (s, method, path) =>
    fetch(s.url + path.replace('{id}', '7'), { method, headers: { authorization: `Bearer pst_${randomBytes(32).toString('base64url')}` } }),
  '403 writeScope': async (s, method, path) => (await s.user({ readOnly: true })).request(path.replace('{id}', '7'), { method }),
  '404 plantNotFound': async (s, method) => (await s.user()).request('/plants/7', { method }),
  '404 routeNotFound': async (s) => fetch(`${s.url}/docs/nothing.js`),
  '409 conflict': async (s) => {
    const user = await s.user();
    await (await user.request('/plants', { method: 'POST', json: { id: 7, name: 'Fern' } })).arrayBuffer();
    return user.request('/plants', { method: 'POST', json: { id: 7, name: 'Monstera' } });
  },
  '413 bodyTooLarge': async (s) => (await s.user()).request('/plants', { method: 'POST', json: { id: 7, name: 'x'.repeat(BODY_LIMIT) } }),
  '415 mediaType': async (s) =>
    (await s.user()).request('/plants', { method: 'POST', body: '{"id":7,"name":"Fern"}', headers: { 'content-type': 'text/plain' } }),
  '415 encoding': async (s) =>
    (await s.user()).request('/plants', { method: 'POST', ...text('{"id":7,"name":"Fern"}'), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
  '415 transferCoding': transferCodedCreate,
  '429 rateLimited': async (s, method, path) => {
    const user = await s.user();
    const send = () => user.request(path.replace('{id}', '7'), { method, ...(method === 'POST' ? text('{"id":7,"name":"Fern"}') : {}) });
    for (let i = 0; i < RATE; i++) await (await send()).arrayBuffer();
    return send();
  },
};
/** Stream refusals need unread streams held open: test/server/stream-abuse.test.ts provokes those. */
const NOT_PROVOKED = new Set(['403 readScope', '500 internal', '503 unavailable', '429 tooManyStreams', '503 streamsBusy']);

describe('the Error examples of the document', () => {
  test('every error status of every operation has examples of its own status that match the document', async () => {
    const all = documentedExamples();
    assert.ok(all.length > 0);
    for (const { method, path, status, name, example } of all) {
      const where = `${method} ${path} ${status} ${name}`;
      assert.equal(example.value.error, status, where);
      assert.ok(example.summary.length > 0, where);
      const response = new Response(JSON.stringify(example.value), { status, headers: exampleHeaders(status) });
      assert.deepEqual(await openApiProblems(response, method, path.replace('{id}', '7').replace('{asset}', 'nothing.js')), [], where);
    }
    const statuses = new Set(all.map((found) => found.status));
    for (const status of [400, 401, 403, 404, 409, 413, 415, 429, 503]) assert.ok(statuses.has(status), `some operation shows a ${status}`);
    const methodNotAllowed = doc.components.responses.MethodNotAllowed?.content?.['application/json']?.examples ?? {};
    assert.deepEqual(Object.values(methodNotAllowed).map((e) => (e.value as ErrorExample['value']).error), [405]);
  });

  test('each example is the body the server answers for the request it names', async (t) => {
    const server = await startTestServer(t, 'sqlite', { bodyLimit: String(BODY_LIMIT), rateLimit: `${RATE}/1m` });
    let provoked = 0;
    for (const { method, path, status, name, example } of documentedExamples()) {
      const key = `${status} ${name}`;
      const where = `${method} ${path} ${key}`;
      const provoke = PROVOKE[key];
      if (provoke === undefined) {
        assert.ok(NOT_PROVOKED.has(key), `${where}: no request provokes it in this test`);
        continue;
      }
      const response = await provoke(server, method, path);
      assert.equal(response.status, status, where);
      assert.deepEqual(await response.json(), example.value, where);
      provoked++;
    }
    assert.ok(provoked >= 20, `provoked ${provoked}`);
  });

  test('the overview lists an example body for every status an Error can carry', () => {
    for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 429, 500, 503]) {
      assert.match(doc.info.description, new RegExp(`\\| ${status} \\| [^|]+ \\| \`\\{"error":${status},"message":"[^"]+`), String(status));
    }
    assert.match(doc.info.description, /This method is not allowed on this path\./);
  });

  test('the document uses no internal words', () => {
    const words = /\b(seed|issues?|baseline|todo|fixme)\b/gi;
    assert.deepEqual(JSON.stringify(openApiDocument()).match(words), null);
  });
});

/** The headers each status must carry by the document, with plausible values. */
function exampleHeaders(status: number): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': 'example' };
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="plantstore"';
  if (status === 403) headers['www-authenticate'] = 'Bearer realm="plantstore", error="insufficient_scope", scope="plants:write"';
  if (status === 429 || status === 503) headers['retry-after'] = '1';
  return headers;
}
