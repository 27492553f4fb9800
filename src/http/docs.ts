/**
 * GET /docs: Swagger UI rendered from /openapi.json, with every asset served from the
 * swagger-ui-dist package by plantstore itself (no CDN).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { errors } from '../errors.js';
import type { Operation } from './router.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
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

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

function loadAssets(): Map<string, { type: string; body: Buffer }> {
  const dir = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json').replace(/package\.json$/, '');
  const assets = new Map<string, { type: string; body: Buffer }>();
  for (const [name, type] of Object.entries(ASSETS)) assets.set(name, { type, body: readFileSync(join(dir, name)) });
  assets.set('init.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(INIT) });
  return assets;
}

export function docsRoutes(): Record<string, Record<string, Operation>> {
  const assets = loadAssets();
  return {
    '/docs': {
      GET: {
        scope: undefined,
        handle: (ctx) => {
          ctx.res.setHeader('content-type', 'text/html; charset=utf-8');
          ctx.res.setHeader('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
          ctx.res.end(PAGE);
        },
      },
    },
    '/docs/{asset}': {
      GET: {
        scope: undefined,
        handle: (ctx) => {
          const asset = assets.get(ctx.param);
          if (asset === undefined) throw errors.routeNotFound();
          ctx.res.setHeader('content-type', asset.type);
          ctx.res.setHeader('cache-control', 'public, max-age=3600');
          ctx.res.end(asset.body);
        },
      },
    },
  };
}
