/**
 * The document's schemas: Plant, NewPlant and Error as specified, with the limits that
 * plantstore enforces. Lengths come from the plant rules themselves, never retyped.
 */
import { NAME_MAX_LENGTH, TAG_MAX_LENGTH } from '../../plants/plant.js';
import { examples } from './error-examples.js';
import type { JsonSchema } from './types.js';

/** The characters a name or tag may not contain: C0 controls and DEL. */
const CONTROL_CLASS = '\\u0000-\\u001F\\u007F';

/**
 * Unicode White_Space outside CONTROL_CLASS, spelled out rather than as `\p{White_Space}`
 * so that every JSON Schema regex dialect reads it; a test compares it with the property.
 */
export const WHITE_SPACE_CLASS = '\\u0020\\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';

/** No control character anywhere, and at least one character that is not white space. */
const TEXT_PATTERN = `^[^${CONTROL_CLASS}]*[^${CONTROL_CLASS}${WHITE_SPACE_CLASS}][^${CONTROL_CLASS}]*$`;

/** Every status an Error body can carry: the API's, and those of what the HTTP parser refuses (408, 417, 431). */
const ERROR_STATUSES = [400, 401, 403, 404, 405, 408, 409, 413, 415, 417, 429, 431, 500, 503] as const;

const TEXT_RULES =
  'Counted in Unicode code points; no control characters (U+0000–U+001F, U+007F); not only Unicode White_Space; ' +
  'valid UTF-8 without lone surrogates.';

function text(description: string, maxLength: number): JsonSchema {
  return { type: 'string', minLength: 1, maxLength, pattern: TEXT_PATTERN, description: `${description} ${TEXT_RULES}` };
}

const name = text(`The name of the plant, 1 to ${NAME_MAX_LENGTH} characters.`, NAME_MAX_LENGTH);
const tag = text(
  `Tag that specifies the type, 1 to ${TAG_MAX_LENGTH} characters. Omitted when the plant has none (never null or empty).`,
  TAG_MAX_LENGTH,
);

export const schemas: Record<string, JsonSchema> = {
  Plant: {
    type: 'object',
    description: 'A plant as the service returns it: no id, and no field other than name and tag.',
    required: ['name'],
    properties: { name, tag },
    additionalProperties: false,
    examples: [{ name: 'Monstera', tag: 'aroid' }],
  },
  PlantFields: {
    type: 'object',
    description:
      'A plant with the members that the `fields` parameter asked for (extension): any of id, name and tag, in that ' +
      'order; tag only when the plant has one. Without `fields` a plant is shown as Plant.',
    properties: {
      id: { type: 'integer', format: 'int64', description: 'The plant id, written as an exact JSON integer.' },
      name,
      tag,
    },
    additionalProperties: false,
    examples: [{ id: 7, name: 'Monstera', tag: 'aroid' }],
  },
  NewPlant: {
    type: 'object',
    description:
      'The body of POST /plants: a Plant plus its id. Fields other than id, name and tag are ignored, never stored and ' +
      'never echoed. The body must be one JSON object in UTF-8; a duplicate key at its top level (compared after ' +
      'unescaping, so "n\\u0061me" duplicates "name") is a 400.',
    required: ['id', 'name'],
    properties: {
      id: {
        type: 'integer',
        format: 'int64',
        description:
          'Identification number of the plant, unique per owner. Kept exact in the full int64 range ' +
          '−9223372036854775808 … 9223372036854775807 (9007199254740993 stays 9007199254740993, never rounded ' +
          'through a double). It must be a JSON integer literal: a string ("7"), null, a fraction (1.5), a fraction ' +
          'or exponent spelling (1.0, 1e3) or a value outside int64 is a 400; -0 means 0.',
      },
      name,
      tag,
    },
    examples: [{ id: 7, name: 'Monstera', tag: 'aroid' }],
  },
  Error: {
    type: 'object',
    description: 'Every failure answers with this body and Content-Type: application/json.',
    required: ['error', 'message'],
    properties: {
      error: {
        type: 'integer',
        format: 'int32',
        enum: [...ERROR_STATUSES],
        description: 'The HTTP status code of the response.',
      },
      message: {
        type: 'string',
        description: 'One human sentence that says what was wrong; never a stack trace, SQL or internal path.',
      },
    },
    additionalProperties: false,
    examples: [examples.plantNotFound.plantNotFound.value],
  },
};
