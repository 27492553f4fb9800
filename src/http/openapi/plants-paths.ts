/** The /plants operations as the routes in http/plants-routes.ts perform them. */
import { READ, WRITE } from '../../auth/principal.js';
import { RATE_LIMIT_HEADERS, errorResponse, json, ref, withRequestId } from './components.js';
import { examples, type ErrorExamples } from './error-examples.js';
import type { OperationObject, PathItemObject, Reference, ResponseObject } from './types.js';

const TAGS = ['plants'];
/** A plant as shown: the Plant schema by default, the members `fields` asks for otherwise. */
const PLANT_VIEW = { anyOf: [ref('schemas', 'Plant'), ref('schemas', 'PlantFields')] };
const REQUEST_ID = ref('parameters', 'X-Request-Id');

function scopeNote(scope: string): string {
  return `Needs a bearer token with the scope \`${scope}\` (a read-only token has only \`${READ}\`).`;
}

/** The responses every /plants operation can give besides its own, which may replace them. */
function common(scope: string): Record<string, ResponseObject | Reference> {
  return {
    401: ref('responses', 'Unauthorized'),
    403: ref('responses', scope === READ ? 'ForbiddenRead' : 'ForbiddenWrite'),
    429: ref('responses', 'TooManyRequests'),
    500: ref('responses', 'InternalError'),
    503: ref('responses', 'Unavailable'),
  };
}

/** A /plants operation: tagged, needing `scope`, with the common responses under its own. */
function plantOperation(scope: string, { operationId, summary, description, ...rest }: Omit<OperationObject, 'tags' | 'security'>): OperationObject {
  // OpenAPI 3.1 lets a non-OAuth2 requirement list the roles it needs: here, the scope.
  const security = [{ bearerAuth: [scope] }];
  return { operationId, summary, tags: TAGS, description, security, ...rest, responses: { ...common(scope), ...rest.responses } };
}

/** An Error response of a /plants operation: it carries the rate limit's headers too. */
function plantError(status: number, description: string, errorExamples: ErrorExamples, ...headerNames: string[]): ResponseObject {
  return errorResponse(status, description, errorExamples, ...headerNames, ...RATE_LIMIT_HEADERS);
}

function createPlant(bodyLimit: BodyLimitNote): OperationObject {
  return plantOperation(WRITE, {
    operationId: 'createPlant',
    summary: 'Create a plant',
    description:
      `Creates a new plant in the store, owned by the caller. ${scopeNote(WRITE)}\n\n` +
      'Ids are unique per owner: another owner may have a plant with the same id, and neither can learn of the ' +
      "other's. Posting the same id, name and tag again answers 200 with the stored plant and changes nothing, so " +
      'a retried create is safe; the same id with a different name or tag is a 409 and the stored plant stays as it ' +
      'was. Of concurrent creates of one id with different bodies exactly one gets 200. A 200 means the plant is ' +
      'committed and synced to disk.\n\n' +
      'Checks run in this order: 401/403, then 400 (a query parameter), 415 (media type), 413 (size), 400 (body); ' +
      'an unauthenticated request never has its body read.',
    parameters: [REQUEST_ID],
    requestBody: {
      description: 'A NewPlant object as UTF-8 JSON.',
      required: true,
      content: json(ref('schemas', 'NewPlant')),
    },
    responses: {
      200: {
        description: 'Created, or an identical retry of an earlier create: the plant as stored.',
        headers: withRequestId('Location', ...RATE_LIMIT_HEADERS),
        content: json(ref('schemas', 'Plant')),
      },
      400: plantError(
        400,
        'The body is not one JSON object (not JSON, an array, a scalar, empty, invalid UTF-8, a duplicate key) or ' +
          'breaks a NewPlant field rule, or the request has a query parameter (a create takes none).',
        examples.createBadBody),
      409: plantError(409, 'The caller already has a plant with this id and a different name or tag; nothing changed.', examples.conflict),
      413: plantError(
        413,
        `The body is larger than the BODY_LIMIT setting (${bodyLimit.configured ? `${bodyLimit.bytes} bytes on this server` : `default ${bodyLimit.bytes} bytes`}).`,
        examples.bodyTooLarge(bodyLimit.bytes)),
      415: ref('responses', 'UnsupportedMediaType'),
    },
  });
}

const listPlants = plantOperation(READ, {
  operationId: 'listPlants',
  summary: 'List the caller’s plants',
  description:
    `Returns the plants the caller has access to: those of its owner, never another owner's. ${scopeNote(READ)}\n\n` +
    'Ordered by id ascending in numeric int64 order (negatives first). Without `limit` every plant is returned, ' +
    'streamed, so the server’s memory does not grow with the answer; if the database fails mid-stream the ' +
    'connection is cut and the JSON is left incomplete. With `limit`, a Link header points at the next page ' +
    'when one follows. `tag` keeps only the plants of one tag; `fields` chooses the members shown (add `id` to see ' +
    'what to fetch or delete). A query parameter not listed here is a 400. A Content-Type header without a body is ignored.',
  parameters: [ref('parameters', 'limit'), ref('parameters', 'after'), ref('parameters', 'tag'), ref('parameters', 'fields'), REQUEST_ID],
  responses: {
    200: {
      description: 'The plants, in id order.',
      headers: withRequestId('Link', ...RATE_LIMIT_HEADERS),
      content: json({ type: 'array', items: PLANT_VIEW }),
    },
    400: plantError(
      400,
      '`limit`, `after`, `tag` or `fields` is malformed, out of range, empty or repeated, or the query has another parameter.',
      examples.listBadQuery),
    429: plantError(
      429,
      'RATE_LIMIT is on and this owner used up its requests (as on every operation), or, without `limit` or with ' +
        'one over 1000, this owner already has STREAMS_PER_OWNER streamed lists open (default 4).',
      { ...examples.rateLimited, ...examples.tooManyStreams },
      'Retry-After'),
    503: plantError(
      503,
      'The database cannot answer now (as on every operation), or, for a streamed list, the server is already ' +
        'streaming as many as it allows (STREAMS_PER_PROCESS, or its share of the PostgreSQL pool).',
      { ...examples.unavailable, ...examples.streamsBusy },
      'Retry-After',
    ),
  },
});

const NO_SUCH_PLANT = plantError(
  404,
  'The caller has no plant with this id: it never existed, was deleted, or belongs to another owner.',
  examples.plantNotFound);

const getPlant = plantOperation(READ, {
  operationId: 'getPlant',
  summary: 'Get one of the caller’s plants',
  description:
    `Returns the caller's plant with this id, where the Location of a create points. ${scopeNote(READ)} ` +
    '`fields` chooses the members shown, as on the list. HEAD answers the same without a body.',
  parameters: [ref('parameters', 'id'), ref('parameters', 'fields'), REQUEST_ID],
  responses: {
    200: {
      description: 'The plant.',
      headers: withRequestId(...RATE_LIMIT_HEADERS),
      content: json(PLANT_VIEW),
    },
    400: plantError(400, 'The id is not a decimal int64, or `fields` is malformed, or the query has another parameter.', examples.badId),
    404: NO_SUCH_PLANT,
  },
});

const deletePlant = plantOperation(WRITE, {
  operationId: 'deletePlant',
  summary: 'Delete a plant',
  description:
    `Deletes one of the caller's plants by id. ${scopeNote(WRITE)} A 204 means the deletion is committed and ` +
    'synced to disk. Deleting again answers 404, so a retried delete that already succeeded reports 404. ' +
    'A Content-Type header without a body is ignored.',
  parameters: [ref('parameters', 'id'), REQUEST_ID],
  responses: {
    204: { description: 'Deleted; no body.', headers: withRequestId(...RATE_LIMIT_HEADERS) },
    400: plantError(400, 'The id is not a decimal int64 (text, fraction, out of range, or empty as in DELETE /plants/), or the ' +
        'request has a query parameter (a delete takes none).', examples.badId),
    404: NO_SUCH_PLANT,
  },
});

/** The request body limit that POST enforces, and whether it is this server's or the default. */
export interface BodyLimitNote {
  bytes: number;
  configured: boolean;
}

/** Paths of the plant resources. */
export function plantPaths(bodyLimit: BodyLimitNote): Record<string, PathItemObject> {
  return {
    '/plants': { post: createPlant(bodyLimit), get: listPlants },
    '/plants/{id}': { get: getPlant, delete: deletePlant },
  };
}
