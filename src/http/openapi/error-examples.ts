/**
 * Example Error bodies for the document, each made by the code that answers it (the error
 * list, the query and plant checks), so an example always shows the message a client gets.
 */
import { READ, WRITE } from '../../auth/principal.js';
import { ApiError, errors } from '../../errors.js';
import { toNewPlant } from '../../plants/plant.js';
import { parseJson } from '../../util/strict-json.js';
import { byPlantRules, parseListParams, parsePlantId } from '../plant-query.js';
import { STREAM_RETRY_AFTER_SECONDS } from '../stream-admission.js';
import type { ExampleObject } from './types.js';

/** An OpenAPI Example Object holding an Error body. */
export type ErrorExample = ExampleObject & { value: { error: number; message: string } };

export type ErrorExamples = Record<string, ErrorExample>;

function example(summary: string, error: ApiError): ErrorExample {
  return { summary, value: { error: error.status, message: error.message } };
}

/** The ApiError that `check` throws; a check that passes is a mistake in this file. */
function thrownBy(check: () => unknown): ApiError {
  try {
    check();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('an example check did not fail');
}

export const examples = {
  createBadBody: {
    missingName: example('POST /plants with a body without a name', thrownBy(() => byPlantRules(() => toNewPlant(parseJson('{"id":7}'))))),
    fractionId: example('POST /plants with the id 7.5', thrownBy(() => byPlantRules(() => toNewPlant(parseJson('{"id":7.5,"name":"Fern"}'))))),
  },
  listBadQuery: {
    badLimit: example('GET /plants?limit=-1', thrownBy(() => parseListParams('limit=-1'))),
    unknownParameter: example('GET /plants?sort=name', thrownBy(() => parseListParams('sort=name'))),
  },
  badId: { badId: example('The id seven in the path', thrownBy(() => parsePlantId('seven'))) },
  unauthorized: {
    missing: example('No Authorization header', errors.missingCredentials()),
    invalid: example('An unknown, revoked or expired token', errors.invalidToken()),
  },
  forbiddenRead: { readScope: example(`A token without ${READ}`, errors.insufficientScope(READ)) },
  forbiddenWrite: { writeScope: example(`A read-only token (no ${WRITE})`, errors.insufficientScope(WRITE)) },
  plantNotFound: { plantNotFound: example('A plant id the caller does not have', errors.plantNotFound()) },
  routeNotFound: { routeNotFound: example('A path that does not exist', errors.routeNotFound()) },
  methodNotAllowed: { methodNotAllowed: example('POST /plants/7', errors.methodNotAllowed(['GET', 'HEAD', 'DELETE'])) },
  conflict: { conflict: example('The same id with another name', errors.plantConflict()) },
  bodyTooLarge: (limit: number): ErrorExamples => ({ bodyTooLarge: example('A body over BODY_LIMIT', errors.bodyTooLarge(limit)) }),
  unsupportedMediaType: {
    mediaType: example('Content-Type: text/plain', errors.unsupportedMediaType()),
    encoding: example('Content-Encoding: gzip', errors.unsupportedContentEncoding()),
    transferCoding: example('Transfer-Encoding: gzip, chunked', errors.unsupportedTransferEncoding()),
  },
  rateLimited: { rateLimited: example('An owner over RATE_LIMIT', errors.rateLimited(1)) },
  tooManyStreams: { tooManyStreams: example('An owner with STREAMS_PER_OWNER streamed lists open', errors.tooManyStreams(4, STREAM_RETRY_AFTER_SECONDS)) },
  unavailable: { unavailable: example('The database does not answer', errors.unavailable()) },
  streamsBusy: { streamsBusy: example('The server streaming STREAMS_PER_PROCESS lists', errors.streamsBusy(STREAM_RETRY_AFTER_SECONDS)) },
  internal: { internal: example('An unexpected failure', errors.internal()) },
} as const;
