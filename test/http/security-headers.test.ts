/**
 * The headers every answer carries: X-Content-Type-Options: nosniff and Cache-Control:
 * no-store on every API answer (200, 204, streams, errors, OPTIONS); a strict CSP on /docs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DOCS_ASSETS, DOCS_CSP } from '../../src/http/docs.js';
import { startTestServer } from '../helpers/server.js';

const POLICY = {
  'default-src': "'self'",
  'img-src': "'self' data:",
  'style-src': "'self'",
  'object-src': "'none'",
  'base-uri': "'none'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
};

function directives(policy: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const part of policy.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) result[name] = values.join(' ');
  }
  return result;
}

function assertApiHeaders(response: Response, where: string): void {
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff', `${where}: nosniff`);
  assert.equal(response.headers.get('cache-control'), 'no-store', `${where}: no-store`);
}

describe('headers on every answer', () => {
  for (const batching of ['true', 'false']) {
    test(`nosniff and no-store on successes, 204s, streams and errors (RESPONSE_BATCHING=${batching})`, async (t) => {
      const server = await startTestServer(t, 'sqlite', { bodyLimit: '256', rateLimit: '1000/1m', responseBatching: batching });
      const user = await server.user();
      const reader = await server.user({ name: user.name, readOnly: true });
      const seen = new Set<number>();
      const check = async (where: string, answer: Promise<Response>) => {
        const response = await answer;
        await response.arrayBuffer();
        assertApiHeaders(response, `${where} → ${response.status}`);
        seen.add(response.status);
      };
      await check('POST /plants', user.request('/plants', { method: 'POST', json: { id: 7, name: 'Fern' } }));
      await check('GET /plants?limit=1', user.request('/plants?limit=1'));
      await check('GET /plants (streamed)', user.request('/plants'));
      await check('HEAD /plants', user.request('/plants', { method: 'HEAD' }));
      await check('GET /plants/7', user.request('/plants/7'));
      await check('OPTIONS /plants', fetch(`${server.url}/plants`, { method: 'OPTIONS' }));
      await check('DELETE /plants/7', user.request('/plants/7', { method: 'DELETE' }));
      await check('DELETE /plants/7 again', user.request('/plants/7', { method: 'DELETE' }));
      await check('GET /plants?limit=-1', user.request('/plants?limit=-1'));
      await check('GET /plants without a token', fetch(`${server.url}/plants`));
      await check('POST /plants read-only', reader.request('/plants', { method: 'POST', json: { id: 8, name: 'Fern' } }));
      await check('POST /plants/7', user.request('/plants/7', { method: 'POST' }));
      await check('GET /nothing', fetch(`${server.url}/nothing`));
      await check('POST /plants conflict', user.request('/plants', { method: 'POST', json: { id: 7, name: 'Other' } }).then(async (first) => {
        await first.arrayBuffer();
        return user.request('/plants', { method: 'POST', json: { id: 7, name: 'Another' } });
      }));
      await check('POST /plants too large', user.request('/plants', { method: 'POST', json: { id: 9, name: 'x'.repeat(300) } }));
      await check('POST /plants as text', user.request('/plants', { method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } }));
      for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']) await check(`GET ${path}`, fetch(server.url + path));
      assert.deepEqual([...seen].sort(), [200, 204, 400, 401, 403, 404, 405, 409, 413, 415]);
    });
  }

  test('429 carries them too', async (t) => {
    const server = await startTestServer(t, 'sqlite', { rateLimit: '1/1m' });
    const user = await server.user();
    await (await user.request('/plants?limit=1')).arrayBuffer();
    const limited = await user.request('/plants?limit=1');
    assert.equal(limited.status, 429);
    assertApiHeaders(limited, '429');
  });

  test('/docs and each of its assets carry the strict content security policy and nosniff', async (t) => {
    const server = await startTestServer(t);
    for (const path of ['/docs', ...Object.keys(DOCS_ASSETS).map((name) => `/docs/${name}`)]) {
      const response = await fetch(server.url + path);
      assert.equal(response.status, 200, path);
      assert.deepEqual(directives(response.headers.get('content-security-policy') ?? ''), POLICY, path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
    }
    assert.deepEqual(directives(DOCS_CSP), POLICY);
    assert.equal((await fetch(`${server.url}/docs`)).headers.get('cache-control'), 'no-store');
    assert.equal((await fetch(`${server.url}/docs/swagger-ui.css`)).headers.get('cache-control'), 'public, max-age=3600');
  });

  test('the /docs page has no inline script or style: everything it runs is a file under /docs/', async (t) => {
    const server = await startTestServer(t);
    const html = await (await fetch(`${server.url}/docs`)).text();
    for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
      assert.match(script[1] ?? '', /\bsrc="\/docs\/[^"]+\.js"/, 'every script is a file');
      assert.equal((script[2] ?? '').trim(), '', 'no inline script');
    }
    assert.doesNotMatch(html, /<style\b|\bstyle\s*=|\bon[a-z]+\s*=/i, 'no inline style or event handler');
  });
});
