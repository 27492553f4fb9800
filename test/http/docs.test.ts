import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { DOCS_ASSETS } from '../../src/http/docs.js';
import { startTestServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const PLAYWRIGHT = 'playwright-core';

/** The types of the few playwright-core calls used, so the package stays optional. */
interface BrowserPage {
  on(event: 'request', listener: (request: { url(): string }) => void): void;
  on(event: 'console', listener: (message: { type(): string; text(): string }) => void): void;
  goto(url: string): Promise<unknown>;
  waitForSelector(selector: string, options: { timeout: number }): Promise<unknown>;
  textContent(selector: string): Promise<string | null>;
}
interface Playwright {
  chromium: { launch(options: { executablePath: string }): Promise<{ newPage(): Promise<BrowserPage>; close(): Promise<void> }> };
}

function browserSkipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is not installed`;
  try {
    createRequire(import.meta.url).resolve(PLAYWRIGHT);
  } catch {
    return `the npm package ${PLAYWRIGHT} is not installed`;
  }
  return undefined;
}

/** Expected content types by file extension: what a browser needs to use each asset. */
const TYPES: Record<string, RegExp> = {
  css: /^text\/css\b/,
  js: /^(text|application)\/javascript\b/,
  png: /^image\/png$/,
  ico: /^image\/(x-icon|vnd\.microsoft\.icon)$/,
  svg: /^image\/svg\+xml\b/,
};

/** Every src/href of script, link and img elements in the page. */
function references(html: string): string[] {
  const found: string[] = [];
  for (const tag of html.matchAll(/<(script|link|img)\b[^>]*>/gi)) {
    for (const attribute of tag[0].matchAll(/\b(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
      found.push(attribute[1] ?? attribute[2] ?? '');
    }
  }
  return found;
}

/** Fetches a reference of the page and checks that plantstore itself serves it, with a fitting type. */
async function assertServedLocally(base: string, reference: string): Promise<Response> {
  const url = new URL(reference, `${base}/docs`);
  assert.equal(url.origin, new URL(base).origin, `${reference} is served by plantstore, not another host`);
  const response = await fetch(url);
  assert.equal(response.status, 200, `${reference} is served`);
  const extension = /\.([a-z0-9]+)$/.exec(url.pathname)?.[1] ?? '';
  const expected = TYPES[extension];
  assert.ok(expected, `${reference} has a known kind of file`);
  assert.match(response.headers.get('content-type') ?? '', expected, `${reference} has a fitting content type`);
  return response;
}

describe('GET /docs', () => {
  test('serves the reference page without a token, and every asset it uses from plantstore itself', async (t) => {
    const server = await startTestServer(t);
    const page = await fetch(`${server.url}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html\b/);
    const html = await page.text();
    const refs = references(html);
    assert.ok(refs.some((ref) => ref.endsWith('.js')) && refs.some((ref) => ref.endsWith('.css')), `scripts and styles: ${refs.join(', ')}`);
    assert.doesNotMatch(html, /https?:\/\/|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i, 'the page names no other host');
    for (const ref of refs) await assertServedLocally(server.url, ref);
  });

  test('the stylesheet loads nothing from elsewhere: its url() references are data: or served here', async (t) => {
    const server = await startTestServer(t);
    const css = await (await fetch(`${server.url}/docs/swagger-ui.css`)).text();
    for (const match of css.matchAll(/url\(\s*['"]?([^'")]+)['"]?\s*\)/g)) {
      const ref = match[1] ?? '';
      if (ref.startsWith('data:')) continue;
      await assertServedLocally(server.url, new URL(ref, `${server.url}/docs/swagger-ui.css`).pathname);
    }
  });

  test('the content security policy lets the page load only from plantstore', async (t) => {
    const server = await startTestServer(t);
    const policy = (await fetch(`${server.url}/docs`)).headers.get('content-security-policy') ?? '';
    assert.match(policy, /default-src 'self'/);
    assert.doesNotMatch(policy, /https?:|\*/);
  });

  test('Swagger UI is pointed at /openapi.json and does not call the external validator', async (t) => {
    const server = await startTestServer(t);
    const init = await (await fetch(`${server.url}/docs/init.js`)).text();
    assert.match(init, /url: '\/openapi\.json'/);
    assert.match(init, /validatorUrl: null/);
  });

  test('every asset named in DOCS_ASSETS is served with its content type', async (t) => {
    const server = await startTestServer(t);
    for (const [name, type] of Object.entries(DOCS_ASSETS)) {
      const response = await fetch(`${server.url}/docs/${name}`);
      assert.equal(response.status, 200, name);
      assert.equal(response.headers.get('content-type'), type, name);
      assert.ok((await response.arrayBuffer()).byteLength > 0, name);
    }
  });

  test('/docs and /openapi.json need no token', async (t) => {
    const server = await startTestServer(t);
    for (const path of ['/docs', '/openapi.json']) {
      const response = await fetch(server.url + path);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('www-authenticate'), null, path);
    }
  });

  const skip = browserSkipReason();
  if (skip !== undefined) process.stdout.write(`browser check of /docs skipped: ${skip}\n`);
  test('a browser renders the operations with no request leaving plantstore', { skip: skip ?? false }, async (t) => {
    const server = await startTestServer(t);
    const { chromium } = (await import(PLAYWRIGHT)) as Playwright;
    const browser = await chromium.launch({ executablePath: CHROMIUM });
    t.after(() => browser.close());
    const page = await browser.newPage();
    const requested: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    const text = (await page.textContent('#swagger-ui')) ?? '';
    for (const summary of ['Create a plant', 'Delete a plant', '/plants/{id}']) assert.ok(text.includes(summary), summary);
    const origin = new URL(server.url).origin;
    assert.deepEqual(requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin), []);
    assert.deepEqual(errors, []);
  });
});
