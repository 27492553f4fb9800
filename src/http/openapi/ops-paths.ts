/** The public operations of http/ops-routes.ts and http/docs.ts: no token needed. */
import { DOCS_ASSETS } from '../docs.js';
import { json, ref, withRequestId } from './components.js';
import type { MediaTypeObject, OperationObject, PathItemObject, ResponseObject } from './types.js';

const TAGS = ['operations'];
const PUBLIC = 'Public: no token needed.';

function publicGet(operation: Omit<OperationObject, 'tags' | 'security' | 'parameters'>): PathItemObject {
  return { get: { ...operation, tags: TAGS, security: [], parameters: [ref('parameters', 'X-Request-Id')] } };
}

function status(value: string): Record<string, MediaTypeObject> {
  return json({ type: 'object', required: ['status'], properties: { status: { const: value } }, additionalProperties: false });
}

/** A 200 with X-Request-Id and this body. */
function ok(description: string, content: Record<string, MediaTypeObject>): ResponseObject {
  return { description, headers: withRequestId(), content };
}

/** Asset bodies by media type; binary ones have no schema, as OpenAPI 3.1 advises. */
function assetContent(): Record<string, MediaTypeObject> {
  const content: Record<string, MediaTypeObject> = {};
  for (const type of new Set(Object.values(DOCS_ASSETS))) {
    const essence = type.split(';')[0] as string;
    content[essence] = essence.startsWith('text/') ? { schema: { type: 'string' } } : {};
  }
  return content;
}

export function opsPaths(): Record<string, PathItemObject> {
  return {
    '/healthz': publicGet({
      operationId: 'getHealth',
      summary: 'Liveness',
      description: `Answers 200 while the process runs, whatever the database does. ${PUBLIC}`,
      responses: { 200: ok('The process runs.', status('ok')) },
    }),
    '/readyz': publicGet({
      operationId: 'getReadiness',
      summary: 'Readiness',
      description: `Answers 200 when the database answers in time, else 503; 503 also once the server has begun to drain before stopping. ${PUBLIC}`,
      responses: {
        200: ok('The database answers.', status('ready')),
        503: ref('responses', 'Unavailable'),
      },
    }),
    '/metrics': publicGet({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description:
        'Prometheus text exposition format (`text/plain; version=0.0.4`): requests by route template, method and ' +
        `status; latency histograms; database write batches; process figures. ${PUBLIC}`,
      responses: {
        200: ok('The metrics.', { 'text/plain': { schema: { type: 'string' } } }),
        500: ref('responses', 'InternalError'),
        503: ref('responses', 'Unavailable'),
      },
    }),
    '/openapi.json': publicGet({
      operationId: 'getOpenApi',
      summary: 'This OpenAPI document',
      description: `The OpenAPI 3.1 document of this service, built once at start. ${PUBLIC}`,
      responses: {
        200: ok(
          'The document.',
          json({
            type: 'object',
            required: ['openapi', 'info', 'paths'],
            properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' } },
          }),
        ),
      },
    }),
    '/docs': publicGet({
      operationId: 'getDocs',
      summary: 'Interactive API reference',
      description:
        'An HTML page (Swagger UI) rendered from /openapi.json. Every script, stylesheet and image it uses is served ' +
        'by plantstore under /docs/; nothing is fetched from a CDN. A strict Content-Security-Policy allows no inline ' +
        `script or style and no other host. The token given to Authorize stays in this browser until Logout. /docs/ ` +
        `answers 308 with Location: /docs. ${PUBLIC}`,
      responses: { 200: ok('The page.', { 'text/html': { schema: { type: 'string' } } }) },
    }),
    '/docs/{asset}': {
      parameters: [
        {
          name: 'asset',
          in: 'path',
          required: true,
          description: 'A file of the /docs page; empty (`/docs/`) is sent to the page itself.',
          schema: { type: 'string', enum: ['', ...Object.keys(DOCS_ASSETS)] },
        },
      ],
      ...publicGet({
        operationId: 'getDocsAsset',
        summary: 'An asset of the API reference page',
        description: `A script, stylesheet or image of the /docs page, from the swagger-ui-dist package. ${PUBLIC}`,
        responses: {
          200: ok('The asset, cacheable for an hour.', assetContent()),
          308: {
            description: '`/docs/`: the page is at `/docs`.',
            headers: { ...withRequestId(), Location: { description: 'The page.', required: true, schema: { type: 'string', const: '/docs' } } },
          },
          404: ref('responses', 'NotFound'),
        },
      }),
    },
  };
}
