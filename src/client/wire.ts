/**
 * Plants on the wire: requests carry ids as exact JSON integer text, and answers are read
 * with the strict parser, which keeps each number's source text, so no id passes through a
 * double (JSON.parse would turn 9007199254740993 into 9007199254740992).
 */
import { INT64_MAX, INT64_MIN } from '../plants/int64.js';
import { JsonNumber, JsonSyntaxError, parseJson, type JsonValue } from '../util/strict-json.js';
import { PlantStoreError, PlantStoreResponseError } from './errors.js';
import type { NewPlant, Plant } from './types.js';

/** Throws unless `id` is a bigint in the int64 range; returns its decimal text. */
export function idText(id: bigint): string {
  if (typeof id !== 'bigint') throw new TypeError(`A plant id must be a bigint (such as 7n or BigInt("7")), not ${typeof id}.`);
  if (id < INT64_MIN || id > INT64_MAX) throw new RangeError(`The plant id ${id} is outside the signed 64-bit range.`);
  return id.toString();
}

/** The body of POST /plants, with the id as an exact integer literal. */
export function newPlantJson(plant: NewPlant): string {
  const tag = plant.tag === undefined ? '' : `,"tag":${JSON.stringify(plant.tag)}`;
  return `{"id":${idText(plant.id)},"name":${JSON.stringify(plant.name)}${tag}}`;
}

function parse(text: string, status: number): JsonValue {
  try {
    return parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new PlantStoreResponseError(status, `The service answered ${status} with a body that is not JSON (${error.message}).`);
    throw error;
  }
}

/** One plant from an answer; `knownId` stands in when the answer carries no id. */
function toPlant(value: JsonValue, status: number, knownId?: bigint): Plant {
  const bad = (why: string) => new PlantStoreResponseError(status, `The service answered ${status} with a plant that ${why}.`);
  if (!(value instanceof Map)) throw bad('is not a JSON object');
  const id = value.get('id');
  const name = value.get('name');
  const tag = value.get('tag');
  let plantId: bigint;
  if (id instanceof JsonNumber && id.isIntegerLiteral) plantId = BigInt(id.text);
  else if (id === undefined && knownId !== undefined) plantId = knownId;
  else throw bad(id === undefined ? 'has no id (does the server support fields=id?)' : 'has an id that is not an integer');
  if (plantId < INT64_MIN || plantId > INT64_MAX) throw bad(`has the id ${plantId}, outside the signed 64-bit range`);
  if (typeof name !== 'string') throw bad('has no name');
  if (tag !== undefined && typeof tag !== 'string') throw bad('has a tag that is not a string');
  return tag === undefined ? { id: plantId, name } : { id: plantId, name, tag };
}

/** A single plant answer (POST, GET /plants/{id}). */
export function readPlant(text: string, status: number, knownId?: bigint): Plant {
  return toPlant(parse(text, status), status, knownId);
}

/** A list answer: a JSON array of plants that carry their ids. */
export function readPlants(text: string, status: number): Plant[] {
  const value = parse(text, status);
  if (!Array.isArray(value)) throw new PlantStoreResponseError(status, `The service answered ${status} with a body that is not a JSON array.`);
  return value.map((item) => toPlant(item, status));
}

/** The PlantStoreError for a refused request: the Error body's message, or the status line when there is none. */
export function readError(text: string, status: number, statusText: string): PlantStoreError {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string' && body.message !== '') {
      return new PlantStoreError(status, body.message);
    }
  } catch {
    // Not an Error body (a proxy's page, a bare 400 from the HTTP parser): fall back to the status line.
  }
  return new PlantStoreError(status, `The service answered ${status}${statusText === '' ? '' : ` ${statusText}`}.`);
}
