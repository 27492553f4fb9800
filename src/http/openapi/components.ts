/**
 * Reusable parts of the document: response headers, parameters, and the error responses
 * that several operations share. Each Error response pins `error` to its own status.
 */
import { INT32_MAX } from '../../plants/int64.js';
import { CLIENT_REQUEST_ID } from '../context.js';
import { examples, type ErrorExamples } from './error-examples.js';
import type { ExampleObject, HeaderObject, JsonSchema, MediaTypeObject, ParameterObject, Reference, ResponseObject } from './types.js';

export const headers: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description:
      "On every response: the client's own X-Request-Id when it matches the pattern, otherwise a fresh id. " +
      'Log lines about the request carry the same id.',
    required: true,
    schema: { type: 'string', pattern: CLIENT_REQUEST_ID.source },
  },
  Location: {
    description: 'The path of the plant: /plants/{id}, with the id exactly as stored.',
    required: true,
    schema: { type: 'string', pattern: '^/plants/-?[0-9]+$', examples: ['/plants/7'] },
  },
  Link: {
    description:
      'Present only when `limit` cut the list short: `</plants?limit=<limit>&after=<last id returned>>; rel="next"`, ' +
      'followed by `&tag=<tag, percent-encoded>` and `&fields=<fields>` when the request gave them. Absent when ' +
      'nothing follows, and with limit=0. Walking the next links visits every plant that exists throughout the walk ' +
      'exactly once, even while other plants are created and deleted.',
    schema: { type: 'string', pattern: '^</plants\\?limit=[0-9]+&after=-?[0-9]+(&tag=[^&>]+)?(&fields=[a-z,]+)?>; rel="next"$' },
  },
  'WWW-Authenticate': {
    description:
      'RFC 6750. Missing header, other scheme or empty token: `Bearer realm="plantstore"`. Unknown, revoked, expired ' +
      'or badly signed token: `Bearer realm="plantstore", error="invalid_token"`. Valid token without the scope: ' +
      '`Bearer realm="plantstore", error="insufficient_scope", scope="<scope>"`.',
    required: true,
    schema: { type: 'string', pattern: '^Bearer realm="plantstore"' },
  },
  Allow: {
    description: 'The methods of this path, HEAD included. OPTIONS is answered on every known path and not listed.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying; the service recovers by itself when its database is back.',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'RateLimit-Policy': {
    description:
      'Only when the RATE_LIMIT setting is on: the quota policy, as draft-ietf-httpapi-ratelimit-headers defines it. ' +
      '`"owner";q=<requests>;w=<window in seconds>`: each owner may make q requests per fixed window of w seconds. ' +
      'Sent on every answer of an operation that needs a token once the request was counted (its token accepted), ' +
      'whatever follows: a 401 on a read or delete for a token revoked since this process last accepted it, or a 503, ' +
      'carries it too. A create looks its token up again before it is counted.',
    schema: { type: 'string', pattern: '^"owner";q=[0-9]+;w=[0-9]+$', examples: ['"owner";q=100;w=60'] },
  },
  RateLimit: {
    description:
      'Only when the RATE_LIMIT setting is on: what is left of the quota after this request, as ' +
      'draft-ietf-httpapi-ratelimit-headers defines it. `"owner";r=<requests left>;t=<seconds until the window ' +
      'ends and the quota is whole again>`. Counted for the whole service when the server uses Redis (REDIS_URL), ' +
      'else per process.',
    schema: { type: 'string', pattern: '^"owner";r=[0-9]+;t=[0-9]+$', examples: ['"owner";r=37;t=12'] },
  },
};

/** The headers an operation that needs a token may carry when RATE_LIMIT is on. */
export const RATE_LIMIT_HEADERS = ['RateLimit', 'RateLimit-Policy'] as const;

/** A `$ref` to a component by kind and name. */
export function ref(kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string): Reference {
  return { $ref: `#/components/${kind}/${name}` };
}

/** Headers of a response: X-Request-Id always, plus the named ones. */
export function withRequestId(...names: string[]): Record<string, Reference> {
  const result: Record<string, Reference> = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  for (const name of names) result[name] = ref('headers', name);
  return result;
}

/** A JSON body of this schema. */
export function json(schema: JsonSchema, examples?: Record<string, ExampleObject>): Record<string, MediaTypeObject> {
  return { 'application/json': examples === undefined ? { schema } : { schema, examples } };
}

/** The Error schema with `error` pinned to this response's status. */
function errorSchema(status: number): JsonSchema {
  return { allOf: [ref('schemas', 'Error'), { type: 'object', properties: { error: { const: status } } }] };
}

/** An Error response with its examples; extra headers are named components. */
export function errorResponse(status: number, description: string, examples: ErrorExamples, ...headerNames: string[]): ResponseObject {
  for (const [name, { value }] of Object.entries(examples)) {
    if (value.error !== status) throw new Error(`the example ${name} is a ${value.error}, not a ${status}`);
  }
  return {
    description,
    headers: withRequestId(...headerNames),
    content: json(errorSchema(status), { ...examples }),
  };
}

export const parameters: Record<string, ParameterObject> = {
  limit: {
    name: 'limit',
    in: 'query',
    description:
      'The most plants to return: an integer from 0 to 2147483647 in ASCII decimal digits (leading zeros allowed, ' +
      'no sign). Absent: every plant of the caller, streamed without limit. 0: `[]` and no Link header. Negative, ' +
      'fraction, text, empty, repeated or over int32 → 400.',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX },
  },
  after: {
    name: 'after',
    in: 'query',
    description:
      'Extension, used by the Link cursor: only plants whose id is greater than this int64. ' +
      'ASCII decimal digits with an optional leading "-"; anything else, or a repeated parameter → 400.',
    schema: { type: 'integer', format: 'int64' },
  },
  tag: {
    name: 'tag',
    in: 'query',
    description:
      'Extension: only plants whose tag equals this exactly (case and all); plants without a tag never match. Paging ' +
      'with limit and after works as without it. Empty or repeated → 400. A value no tag can have (over 64 ' +
        'characters, a control character, only white space) matches no plant: 200 and [].',
    schema: { type: 'string', minLength: 1 },
  },
  fields: {
    name: 'fields',
    in: 'query',
    description:
      'Extension: the members each plant is shown with, a comma-separated subset of id, name and tag, each at most ' +
      'once (`fields=id,name,tag` shows the ids a client needs to fetch or delete a plant). Absent: name and tag, as ' +
      'the Plant schema. The id is written as an exact JSON integer. An unknown or repeated field, or an empty value → 400.',
    // The look-ahead refuses a field named twice, as the server does.
    schema: { type: 'string', pattern: '^(?!.*\\b(id|name|tag)\\b.*\\b\\1\\b)(id|name|tag)(,(id|name|tag)){0,2}$', examples: ['id,name,tag'] },
  },
  id: {
    name: 'id',
    in: 'path',
    description:
      'The plant id, an int64 in ASCII decimal digits with an optional leading "-" (leading zeros allowed, "007" is 7). ' +
      'Text, fraction, "+7", spaces, out of range or empty → 400.',
    required: true,
    schema: { type: 'integer', format: 'int64' },
  },
  'X-Request-Id': {
    name: 'X-Request-Id',
    in: 'header',
    description: 'Optional id for tracing this request; echoed on the response when it matches the pattern.',
    schema: { type: 'string', pattern: CLIENT_REQUEST_ID.source },
  },
};

export const responses: Record<string, ResponseObject> = {
  Unauthorized: errorResponse(
    401,
    'No usable bearer token: the Authorization header is missing, uses another scheme, carries an empty token, or ' +
      'the token is unknown, revoked, expired or badly signed. A JWT whose signature holds but whose claims do not ' +
      'is told which claim is refused. Checked before the body is read.',
    examples.unauthorized,
    'WWW-Authenticate',
    ...RATE_LIMIT_HEADERS,
  ),
  ForbiddenRead: errorResponse(403, 'The token is valid but lacks the scope plants:read.', examples.forbiddenRead, 'WWW-Authenticate'),
  ForbiddenWrite: errorResponse(
    403,
    'The token is valid but lacks the scope plants:write (a read-only token).',
    examples.forbiddenWrite,
    'WWW-Authenticate',
  ),
  NotFound: errorResponse(404, 'No resource exists at this path (any method).', examples.routeNotFound),
  MethodNotAllowed: errorResponse(
    405,
    'The path exists but does not answer this method (for example PUT /plants or POST /plants/7). ' +
      'Any method a path does not list answers this.',
    examples.methodNotAllowed,
    'Allow',
  ),
  UnsupportedMediaType: errorResponse(
    415,
    'The request has no Content-Type or one other than application/json (compared case-insensitively; parameters ' +
      'such as charset=utf-8 are allowed; application/merge-patch+json is another type), declares a charset other ' +
      'than UTF-8 (utf-8, utf8) or US-ASCII or more than one charset, or carries a Content-Encoding other than identity (bodies are not decompressed) or a Transfer-Encoding other than chunked.',
    examples.unsupportedMediaType,
    ...RATE_LIMIT_HEADERS,
  ),
  Unavailable: errorResponse(
    503,
    'The database, or the identity provider holding an uncached JWT key, cannot answer now. A write may or may not ' +
      'have been applied (a failure can come after the commit); retrying is safe: a retried create answers 200 or ' +
      '409 as usual, a retried delete may answer 404.',
    examples.unavailable,
    'Retry-After',
    ...RATE_LIMIT_HEADERS,
  ),
  TooManyRequests: errorResponse(
    429,
    'This owner used up its requests for now: only when the RATE_LIMIT setting is on (it is off by default); ' +
      'counted per owner after authentication, for the whole service with REDIS_URL, else per process.',
    examples.rateLimited,
    'Retry-After',
    ...RATE_LIMIT_HEADERS,
  ),
  InternalError: errorResponse(
    500,
    'An unexpected failure; the message is generic and the details are logged with the request id.',
    examples.internal,
  ),
  Preflight: {
    description:
      'OPTIONS on any known path: no body, with Allow. CORS headers are added only for origins listed in the ' +
      'CORS_ORIGINS setting (none by default).',
    headers: withRequestId('Allow'),
  },
};
