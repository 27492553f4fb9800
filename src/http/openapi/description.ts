/**
 * The document's overview: a short lead with the Authorize hint, then, collapsed so the
 * operations and Authorize stay on the first screen, every rule a client can rely on
 * without reading the code, and the Error answer of each status.
 */
import { READ, WRITE } from '../../auth/principal.js';
import { CLIENT_REQUEST_ID } from '../context.js';
import { examples, type ErrorExamples } from './error-examples.js';

/** Every status an Error can carry, with its examples; all from the real error list. */
function errorTable(bodyLimit: number): string {
  const all: ErrorExamples[] = [
    examples.listBadQuery,
    examples.createBadBody,
    examples.unauthorized,
    examples.forbiddenWrite,
    examples.routeNotFound,
    examples.plantNotFound,
    examples.methodNotAllowed,
    examples.conflict,
    examples.bodyTooLarge(bodyLimit),
    examples.unsupportedMediaType,
    examples.rateLimited,
    examples.internal,
    examples.unavailable,
  ];
  const lines = ['| Status | When | Body |', '| --- | --- | --- |'];
  for (const group of all) {
    for (const { summary, value } of Object.values(group)) lines.push(`| ${value.error} | ${summary} | \`${JSON.stringify(value)}\` |`);
  }
  return lines.join('\n');
}

/** The overview; `bodyLimit` is this server's BODY_LIMIT in bytes, as the 413 example says it. */
export function description(bodyLimit: number): string {
  return `Press **Authorize**, paste a token from \`plantstore token create\`, and try the operations below; the page keeps the
token in this browser until you log out.

<details>
<summary>How the service behaves: authentication, ownership, guarantees, errors, HTTP details</summary>

## Authentication

Every \`/plants\` operation needs \`Authorization: Bearer <token>\` (scheme name case-insensitive). Two kinds of token:
API tokens issued by \`plantstore token create\` (\`pst_\` followed by 43 base64url characters), and, when configured,
JWTs from an identity provider. Scopes: \`${READ}\` for GET, \`${WRITE}\` for POST and DELETE; a read-only API token
has only \`${READ}\`; a JWT's scopes come from its \`scope\` (or \`scp\`) claim.

- Missing header, other scheme or empty token → 401, \`WWW-Authenticate: Bearer realm="plantstore"\`.
- Unknown, revoked, expired or badly signed token → 401 with \`error="invalid_token"\`.
- Valid token without the scope → 403 with \`error="insufficient_scope", scope="…"\`.
- Token checks run before the body is read: an unauthenticated request never learns whether its body was valid.

## Ownership

Every plant belongs to one owner (the user of the API token that created it, or the owner claim of the JWT). A caller
sees and deletes only its owner's plants. Ids are unique per owner; another owner's plant answers exactly like an
absent one (404 on DELETE, absent from GET). All tokens of one user share that user's plants.

## Guarantees and rules

- POST answers 200 (not 201) with a \`Location\` header. Repeating a create with the same id, name and tag is safe
  and answers 200 again; the same id with a different name or tag is a 409.
- A 200 on POST or a 204 on DELETE means the change is committed and synced to disk.
- GET /plants is ordered by id ascending (numeric int64 order). Without \`limit\` it returns every plant, streamed.
  With \`limit\` it pages through \`Link: rel="next"\`, using the \`after\` extension parameter as a cursor.
- DELETE answers 204 with no body, 404 for an id the caller does not have, 400 for an id that is not an int64.
- Ids are int64 and exact across the whole range: send them as JSON integer literals.
- Checks run in this order: unknown path 404 → other method 405 (with \`Allow\`) → 401/403 → 400 for a query parameter → 415
  → 413 → 400 for the body.
- Every error has an \`Error\` body whose \`error\` is the HTTP status, and \`Content-Type: application/json\`.
- An unexpected failure is a 500 with a generic message; a database that is down gives 503 with \`Retry-After\`, and
  the service recovers by itself when it is back.
- Rate limiting is off unless the RATE_LIMIT setting is on; then an owner over its rate gets 429 with \`Retry-After\`
  (checked right after authentication, before the body), and every answer past authentication carries
  \`RateLimit-Policy\` and \`RateLimit\` (draft-ietf-httpapi-ratelimit-headers).
- GET /plants without \`limit\` (or with one over 1000) streams: one owner may have STREAMS_PER_OWNER streams open at once (default 4, then
  429), a server STREAMS_PER_PROCESS (default 32, then 503), both with \`Retry-After\`; a stream still running after
  STREAM_DEADLINE (default 5 minutes), or whose client reads nothing for 30 s, is cut off. Page with \`limit\` to avoid both.

## HTTP details

- Every response carries \`X-Request-Id\`: the client's own value when it matches \`${CLIENT_REQUEST_ID.source}\`,
  otherwise a fresh id.
- Every response carries \`X-Content-Type-Options: nosniff\` and \`Cache-Control: no-store\`, except the files of this
  page under \`/docs/\`, which may be cached for an hour.
- Every path that answers GET also answers HEAD (same status and headers, no body), and every known path answers
  OPTIONS with 204 and \`Allow\`. CORS headers are sent only to origins listed in the \`CORS_ORIGINS\` setting.
- A path that does not exist answers 404 and a method that a path does not list answers 405 (see
  the error answers below), whatever the token; only the checks of HTTP itself, in the next item, come first.
- Request headers must arrive within 30 s and the whole request within 30 s, or the connection gets 408 or is closed.
  What the HTTP parser itself rejects gets an Error body and the connection is closed: 400 for a malformed request,
  431 for headers larger than the server accepts; an \`Expect\` other than \`100-continue\` gets 417. So does a
  request with no \`Host\` (HTTP/1.1) or more than one \`Host\`, \`Authorization\` or \`Content-Type\` line: 400.
  These may answer any request, so operations do not list them (408, 417 and 431 among their statuses).
- Paths carry no version prefix; this document's version is the interface version.

## Error answers

${errorTable(bodyLimit)}

</details>
`;
}
