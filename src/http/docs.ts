/**
 * GET /docs: Swagger UI rendered from /openapi.json, with every asset served from the
 * swagger-ui-dist package by plantstore itself (no CDN).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { errors } from '../errors.js';
import { startResponse } from './respond.js';
import { publicGet, type Operation } from './router.js';

const JS = 'text/javascript; charset=utf-8';

/** Every file the /docs page loads, by name under /docs/, with its content type. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': JS,
  'favicon-32x32.png': 'image/png',
  'init.js': JS,
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>plantstore API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/**
 * The page's script. Swagger UI shows a JSON response as JSON.stringify(JSON.parse(body)), which
 * rounds ids beyond 2^53 through a double; `exactJsonBodies` (a plugin through its public
 * wrapComponents) shows the body re-indented from its own text instead.
 * validatorUrl: null, or Swagger UI would send the document's address to validator.swagger.io.
 * persistAuthorization keeps the token in this browser's localStorage across reloads, until Logout.
 */
const INIT = `function indentJson(text) {
  let out = '';
  let depth = 0;
  const newline = () => '\\n' + '  '.repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '{' || c === '[') {
      if (text[i + 1] === (c === '{' ? '}' : ']')) out += c + text[++i];
      else { depth++; out += c + newline(); }
    } else if (c === '}' || c === ']') { depth--; out += newline() + c; }
    else if (c === ',') out += ',' + newline();
    else if (c === ':') out += ': ';
    else if (c.trim() !== '') out += c;
  }
  return out;
}

const exactJsonBodies = () => ({
  wrapComponents: {
    responseBody: (Original, system) => (props) => {
      const { React } = system;
      if (!/json/i.test(props.contentType || '') || typeof props.content !== 'string') return React.createElement(Original, props);
      const HighlightCode = props.getComponent('HighlightCode', true);
      const code = React.createElement(HighlightCode, { language: 'json', downloadable: true, fileName: 'response.json', canCopy: true }, indentJson(props.content));
      return React.createElement('div', null, React.createElement('h5', null, 'Response body'), code);
    },
  },
});

window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, persistAuthorization: true, plugins: [exactJsonBodies] });
`;

/**
 * Only plantstore's own files: no inline script or style, no eval, no plugin, no other host;
 * Swagger UI's styles set through the DOM are allowed by CSP, and its stylesheet uses data: images.
 */
export const DOCS_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; object-src 'none'; base-uri 'none'; " +
  "form-action 'self'; frame-ancestors 'none'";

function loadAssets(): Map<string, { type: string; body: Buffer }> {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, { type: string; body: Buffer }>();
  for (const [name, type] of Object.entries(DOCS_ASSETS)) {
    assets.set(name, { type, body: name === 'init.js' ? Buffer.from(INIT) : readFileSync(join(dir, name)) });
  }
  return assets;
}

/** The /docs page and its assets, read into memory once at start. */
export function docsRoutes(): Record<string, Record<string, Operation>> {
  const assets = loadAssets();
  return {
    '/docs': publicGet((ctx) => {
      startResponse(ctx, 200).setHeader('content-type', 'text/html; charset=utf-8').setHeader('content-security-policy', DOCS_CSP).end(PAGE);
    }),
    '/docs/{asset}': publicGet((ctx) => {
      // `/docs/` is a common way to type the page's address: send it there.
      if (ctx.param === '') return void startResponse(ctx, 308).setHeader('location', '/docs').end();
      const asset = assets.get(ctx.param);
      if (asset === undefined) throw errors.routeNotFound();
      startResponse(ctx, 200)
        .setHeader('content-type', asset.type)
        .setHeader('content-security-policy', DOCS_CSP)
        .setHeader('cache-control', 'public, max-age=3600')
        .end(asset.body);
    }),
  };
}
