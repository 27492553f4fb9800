/**
 * The OpenAPI 3.1 document served at GET /openapi.json, assembled from src/http/openapi/.
 * It keeps the specified schemas (Plant, NewPlant, Error) and security scheme (bearerAuth).
 */
import { SETTINGS } from '../settings.js';
import { headers, parameters, responses } from './openapi/components.js';
import { description } from './openapi/description.js';
import { opsPaths } from './openapi/ops-paths.js';
import { plantPaths } from './openapi/plants-paths.js';
import { schemas } from './openapi/schemas.js';
import type { OpenApiDocument } from './openapi/types.js';

export type { OpenApiDocument } from './openapi/types.js';

export interface OpenApiOptions {
  /** This server's BODY_LIMIT in bytes; the document names the default when it is not given. */
  bodyLimit?: number;
}

function defaultBodyLimit(): number {
  return Number(SETTINGS.find((spec) => spec.key === 'bodyLimit')?.default);
}

/** Builds the document; a new object on every call, so callers may keep or change theirs. */
export function openApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const bodyLimit = { bytes: options.bodyLimit ?? defaultBodyLimit(), configured: options.bodyLimit !== undefined };
  return {
    openapi: '3.1.0',
    info: {
      title: 'plantstore',
      version: '1.0.0',
      summary: 'A plant store: create, list and delete plants behind bearer authentication.',
      description: description(bodyLimit.bytes),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This plantstore instance' }],
    tags: [
      { name: 'plants', description: "The caller's plants; bearer token needed." },
      { name: 'operations', description: 'Health, readiness, metrics and documentation; no token needed.' },
    ],
    // As specified: bearer authentication applies to every operation; public ones opt out with `security: []`.
    security: [{ bearerAuth: [] }],
    paths: { ...plantPaths(bodyLimit), ...opsPaths() },
    components: {
      schemas,
      responses,
      headers,
      parameters,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'pst_ API token or JWT',
          description:
            'An API token from `plantstore token create` (`pst_` and 43 base64url characters) or, when configured, a JWT ' +
            'from the identity provider. Scopes: plants:read for GET /plants, plants:write for POST /plants and ' +
            'DELETE /plants/{id}.',
        },
      },
    },
  };
}
