/**
 * The error list: every failure plantstore answers with, its status and its sentence.
 * Handlers throw these; http/respond.ts turns them into Error bodies (and http/client-error.ts,
 * for the requests node's HTTP parser refuses before any handler runs).
 */

const REALM = 'Bearer realm="plantstore"';

const retryAfter = (seconds: number) => ({ 'retry-after': String(seconds) });

/** A failure with an HTTP status, a message for the client, and extra response headers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The storage cannot answer now (down, locked, disk full); the client may retry. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

export const errors = {
  badRequest: (message: string) => new ApiError(400, message),
  missingCredentials: () =>
    new ApiError(401, 'This operation needs a bearer token in the Authorization header.', { 'www-authenticate': REALM }),
  /** `reason` only for a JWT whose signature holds: its holder may learn which claim is refused. */
  invalidToken: (reason?: string) =>
    new ApiError(401, reason === undefined ? 'The bearer token is unknown, revoked, expired or badly signed.' : `The bearer token is refused: ${reason}.`, {
      'www-authenticate': `${REALM}, error="invalid_token"`,
    }),
  insufficientScope: (scope: string) =>
    new ApiError(403, `The bearer token lacks the scope ${scope} that this operation needs.`, {
      'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"`,
    }),
  // RFC 9112 §3.2: a server must answer 400 to an HTTP/1.1 request without Host (node's own check sends no body).
  badHost: () => new ApiError(400, 'An HTTP/1.1 request must carry exactly one Host header.', { connection: 'close' }),
  repeatedHeader: (name: string) => new ApiError(400, `The request carries more than one ${name} header; send one.`, { connection: 'close' }),
  routeNotFound: () => new ApiError(404, 'No resource exists at this path.'),
  plantNotFound: () => new ApiError(404, 'No plant with this id exists.'),
  methodNotAllowed: (allow: readonly string[]) =>
    new ApiError(405, 'This method is not allowed on this path.', { allow: allow.join(', ') }),
  plantConflict: () =>
    new ApiError(409, 'A plant with this id already exists with a different name or tag.'),
  // The unread rest of the body would otherwise be taken for the next request: close after answering.
  bodyTooLarge: (limit: number) =>
    new ApiError(413, `The request body is larger than the limit of ${limit} bytes.`, { connection: 'close' }),
  // A client that expected something else may send its body anyway: close after answering.
  expectationFailed: () => new ApiError(417, 'The only expectation this server meets is 100-continue.', { connection: 'close' }),
  unsupportedMediaType: () => new ApiError(415, 'The request body must be sent with Content-Type: application/json.'),
  unsupportedContentEncoding: () =>
    new ApiError(415, 'The request body must be sent uncompressed; Content-Encoding is not supported.'),
  // RFC 9112 §6.1 suggests 501; a 4xx keeps a client's choice out of the server-error figures.
  unsupportedTransferEncoding: () =>
    new ApiError(415, 'The request body must be sent with Content-Length or Transfer-Encoding: chunked alone; other transfer codings are not supported.'),
  rateLimited: (seconds: number) => new ApiError(429, 'Too many requests for this owner; wait before trying again.', retryAfter(seconds)),
  tooManyStreams: (perOwner: number, seconds: number) =>
    new ApiError(429, `This owner already has ${perOwner} streamed lists open; finish one, or page with a limit of at most 1000, before starting another.`, retryAfter(seconds)),
  streamsBusy: (seconds: number) =>
    new ApiError(503, 'The server is streaming as many lists as it can right now; try again shortly, or page with a limit of at most 1000.', retryAfter(seconds)),
  unavailable: (message = 'The service cannot use its database right now; try again shortly.', seconds = 1) =>
    new ApiError(503, message, retryAfter(seconds)),
  internal: () => new ApiError(500, 'The server failed unexpectedly; the failure has been logged.'),
} as const;
