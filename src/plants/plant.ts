/**
 * The rules of a plant: what a valid NewPlant is and how a stored plant is shown.
 * No HTTP and no SQL here.
 */
import { JsonNumber, type JsonValue } from '../util/strict-json.js';
import { INT64_MAX, INT64_MIN } from './int64.js';

export const NAME_MAX_LENGTH = 256;
export const TAG_MAX_LENGTH = 64;

/** A plant with its id, as stored and as created. */
export interface StoredPlant {
  id: bigint;
  name: string;
  tag: string | null;
}

/** Thrown when a body breaks a field rule; the message is for the client. */
export class PlantValidationError extends Error {}

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const ONLY_WHITE_SPACE = /^\p{White_Space}*$/u;

function codePointLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) i++; // a well-formed pair counts once
    length++;
  }
  return length;
}

function checkText(field: string, value: JsonValue | undefined, maxLength: number): string {
  if (typeof value !== 'string') throw new PlantValidationError(`"${field}" must be a string.`);
  if (!value.isWellFormed()) throw new PlantValidationError(`"${field}" contains an unpaired surrogate.`);
  const length = codePointLength(value);
  if (length < 1 || length > maxLength) {
    throw new PlantValidationError(`"${field}" must be 1 to ${maxLength} characters long.`);
  }
  if (CONTROL_CHARACTER.test(value)) throw new PlantValidationError(`"${field}" must not contain control characters.`);
  if (ONLY_WHITE_SPACE.test(value)) throw new PlantValidationError(`"${field}" must not be only whitespace.`);
  return value;
}

/**
 * Why an `id` member that is not an integer literal is refused, for the client. Ids in quotes
 * are a common way to keep big integers exact elsewhere, so that case says more.
 */
function notAnIntegerId(value: JsonValue): string {
  if (value instanceof JsonNumber) return '"id" must be an integer written without fraction or exponent.';
  if (typeof value === 'string') return '"id" must be a JSON number, not a string: write the integer without quotes (every int64 is kept exactly).';
  return '"id" must be a JSON integer.';
}

/** The `id` member of a NewPlant as an int64; throws a PlantValidationError saying what is wrong. */
export function plantIdOf(value: JsonValue | undefined): bigint {
  if (value === undefined) throw new PlantValidationError('"id" is required.');
  if (!(value instanceof JsonNumber) || !value.isIntegerLiteral) throw new PlantValidationError(notAnIntegerId(value));
  // No int64 is longer than 20 characters ("-9223372036854775808"), and JSON allows no leading
  // zeros: a longer literal is out of range without paying for a huge BigInt.
  const id = value.text.length > 20 ? undefined : BigInt(value.text);
  if (id === undefined || id < INT64_MIN || id > INT64_MAX) throw new PlantValidationError('"id" must fit in a signed 64-bit integer.');
  return id;
}

/** Whether the NewPlant rules allow this tag: a `tag` filter that they do not matches no plant. */
export function couldBeTag(value: string): boolean {
  try {
    checkText('tag', value, TAG_MAX_LENGTH);
    return true;
  } catch {
    return false;
  }
}

/** Checks a parsed body against the NewPlant rules; other fields are dropped. */
export function toNewPlant(body: JsonValue): StoredPlant {
  if (!(body instanceof Map)) throw new PlantValidationError('The request body must be a JSON object.');
  const id = plantIdOf(body.get('id'));
  if (!body.has('name')) throw new PlantValidationError('"name" is required.');
  const name = checkText('name', body.get('name'), NAME_MAX_LENGTH);
  const tag = body.has('tag') ? checkText('tag', body.get('tag'), TAG_MAX_LENGTH) : null;
  return { id, name, tag };
}

/** The members a plant is shown with (`fields`); the seed's Plant is name and tag. */
export interface PlantFields {
  id: boolean;
  name: boolean;
  tag: boolean;
}

export const PLANT_FIELDS: PlantFields = { id: false, name: true, tag: true };

/** A stored plant as the API shows it, built directly: `id` as an exact integer, `tag` only when it has one. */
export function plantJson(stored: StoredPlant, fields: PlantFields = PLANT_FIELDS): string {
  let json = '';
  if (fields.id) json += `,"id":${stored.id}`;
  if (fields.name) json += `,"name":${JSON.stringify(stored.name)}`;
  if (fields.tag && stored.tag !== null) json += `,"tag":${JSON.stringify(stored.tag)}`;
  return json === '' ? '{}' : `{${json.slice(1)}}`;
}

/** Plants as the members of a JSON array: their objects separated by commas, without the brackets. */
export function plantsJson(plants: readonly StoredPlant[], fields: PlantFields): string {
  let json = '';
  for (let i = 0; i < plants.length; i++) json += (i === 0 ? '' : ',') + plantJson(plants[i] as StoredPlant, fields);
  return json;
}

/** What a create of `asked` is when `stored` holds its id: a safe retry if name and tag match, else a conflict. */
export function repeatOrConflict(asked: StoredPlant, stored: { name: string; tag: string | null }): 'unchanged' | 'conflict' {
  return asked.name === stored.name && asked.tag === stored.tag ? 'unchanged' : 'conflict';
}
