/**
 * The input of `plants import`: JSON Lines (one NewPlant object a line) or CSV with a header
 * naming id, name and optionally tag, read as a stream. Each plant keeps its line number; a
 * line that is not a plant becomes a refusal with its reason. Ids are read exactly.
 */
import type { NewPlant } from '../client/index.js';
import { parseInt64 } from '../plants/int64.js';
import { PlantValidationError, plantIdOf } from '../plants/plant.js';
import { JsonSyntaxError, parseJson } from '../util/strict-json.js';
import { UsageError } from './usage.js';
import { CsvParser, type CsvRecord } from './csv.js';

export type ImportFormat = 'csv' | 'jsonl';

export type InputItem = { line: number; plant: NewPlant } | { line: number; refused: string };

/** The format a file name says, or undefined when it says none. */
export function formatOfPath(path: string): ImportFormat | undefined {
  if (/\.csv$/i.test(path)) return 'csv';
  if (/\.(jsonl|ndjson|json)$/i.test(path)) return 'jsonl';
  return undefined;
}

/** Reads plants from UTF-8 bytes; `format` undefined: JSON Lines when the first character is `{`, else CSV. */
export async function* readPlants(source: AsyncIterable<Uint8Array>, format?: ImportFormat): AsyncGenerator<InputItem> {
  const chunks = decode(source);
  const first = await chunks.next();
  if (first.done === true) return;
  const chosen = format ?? (/^\s*\{/.test(first.value) ? 'jsonl' : 'csv');
  // `plants list --json` writes an array: every line of it would be refused one by one.
  if (format !== 'csv' && /^\s*\[/.test(first.value)) {
    throw new UsageError("the input is a JSON array; import reads JSON Lines, one plant per line, as plants export writes them (jq -c '.[]' turns an array into them)");
  }
  const all = prepend(first.value, chunks);
  yield* chosen === 'csv' ? csvItems(all) : jsonLineItems(all);
}

/** Bytes that are not UTF-8: the import stops at their line, once the lines before it are read. */
export class NotUtf8Error extends UsageError {
  constructor(readonly line: number) {
    super(`line ${line} is not valid UTF-8`);
  }
}

const LF = 0x0a;
const CR = 0x0d;
/** Line breaks as the CSV reader counts them: CRLF, or a CR or LF alone. */
const LINE_BREAK = /\r\n|\r|\n/g;
/** Whole lines only, so each decode stands alone; a byte order mark is kept, to be dropped at the start only. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The text of the input, decoded a whole line at a time (a CR or LF byte is never part of a
 * longer UTF-8 character), so that bytes that are not UTF-8 stop it at their own line, with
 * every line before it read.
 */
async function* decode(source: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let rest: Uint8Array = new Uint8Array(0);
  let line = 1;
  const lines = function* (bytes: Uint8Array): Generator<string> {
    const decoded = decodeLines(bytes, line);
    const text = line === 1 ? decoded.text.replace(/^\uFEFF/, '') : decoded.text; // a byte order mark
    line += text.match(LINE_BREAK)?.length ?? 0;
    if (text !== '') yield text;
    if (decoded.notUtf8 !== undefined) throw new NotUtf8Error(decoded.notUtf8);
  };
  for await (const chunk of source) {
    const bytes = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    const end = wholeLinesEnd(bytes);
    rest = bytes.subarray(end);
    yield* lines(bytes.subarray(0, end));
  }
  yield* lines(rest);
}

/** Where the whole lines in `bytes` end: after its last line break, unless that is a CR the next chunk may pair with an LF. */
function wholeLinesEnd(bytes: Uint8Array): number {
  const end = Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR)) + 1;
  if (end === 0 || end < bytes.length || bytes[end - 1] === LF) return end;
  return wholeLinesEnd(bytes.subarray(0, end - 1));
}

/** Whole lines as text, up to the first line that is not UTF-8, whose number `notUtf8` is. */
function decodeLines(bytes: Uint8Array, firstLine: number): { text: string; notUtf8?: number } {
  try {
    return { text: UTF8.decode(bytes) };
  } catch {
    let text = '';
    let start = 0;
    for (let number = firstLine; ; number++) {
      const end = lineEnd(bytes, start);
      try {
        text += UTF8.decode(bytes.subarray(start, end));
      } catch {
        return { text, notUtf8: number };
      }
      start = end;
    }
  }
}

/** Where the line that starts at `start` ends, its line break included. */
function lineEnd(bytes: Uint8Array, start: number): number {
  for (let at = start; at < bytes.length; at++) {
    if (bytes[at] === LF) return at + 1;
    if (bytes[at] === CR) return bytes[at + 1] === LF ? at + 2 : at + 1;
  }
  return bytes.length;
}

async function* prepend(head: string, rest: AsyncIterable<string>): AsyncGenerator<string> {
  yield head;
  yield* rest;
}

async function* jsonLineItems(chunks: AsyncIterable<string>): AsyncGenerator<InputItem> {
  let pending = '';
  let line = 0;
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      const text = pending + chunk.slice(start, end);
      pending = '';
      start = end + 1;
      const item = jsonLineItem(text, ++line);
      if (item !== undefined) yield item;
    }
    pending += chunk.slice(start);
  }
  const item = jsonLineItem(pending, ++line);
  if (item !== undefined) yield item;
}

function jsonLineItem(raw: string, line: number): InputItem | undefined {
  const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (text.trim() === '') return undefined;
  let value;
  try {
    value = parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { line, refused: `not JSON: ${error.message}.` };
    throw error;
  }
  if (!(value instanceof Map)) return { line, refused: 'not a JSON object.' };
  const id = value.get('id');
  const name = value.get('name');
  const tag = value.get('tag');
  let plantId: bigint;
  try {
    plantId = plantIdOf(id);
  } catch (error) {
    if (error instanceof PlantValidationError) return { line, refused: error.message };
    throw error;
  }
  if (typeof name !== 'string') return { line, refused: '"name" must be a string.' };
  if (tag !== undefined && typeof tag !== 'string') return { line, refused: '"tag" must be a string (leave it out for no tag).' };
  return { line, plant: tag === undefined ? { id: plantId, name } : { id: plantId, name, tag } };
}

interface Columns {
  count: number;
  id: number;
  name: number;
  tag: number | undefined;
}

function headerColumns(record: CsvRecord): Columns {
  if (record.error !== undefined) throw new UsageError(`the CSV header on line ${record.line} cannot be read: ${record.error}`);
  const names = record.fields.map((field) => field.trim().toLowerCase());
  const unknown = names.find((name) => !['id', 'name', 'tag'].includes(name));
  if (unknown !== undefined || new Set(names).size !== names.length || !names.includes('id') || !names.includes('name')) {
    throw new UsageError(`the CSV header must be id,name,tag (tag optional, any order), not ${record.fields.join(',')}`);
  }
  const tag = names.indexOf('tag');
  return { count: names.length, id: names.indexOf('id'), name: names.indexOf('name'), tag: tag === -1 ? undefined : tag };
}

function csvItem(record: CsvRecord, columns: Columns): InputItem {
  const { line, fields } = record;
  if (record.error !== undefined) return { line, refused: `not CSV: ${record.error}.` };
  if (fields.length !== columns.count) return { line, refused: `has ${fields.length} fields; the header has ${columns.count}.` };
  const id = parseInt64(fields[columns.id] ?? '');
  if (id === undefined) return { line, refused: '"id" must be a signed 64-bit integer in decimal digits.' };
  const name = fields[columns.name] ?? '';
  const tag = columns.tag === undefined ? '' : (fields[columns.tag] ?? '');
  return { line, plant: tag === '' ? { id, name } : { id, name, tag } };
}

async function* csvItems(chunks: AsyncIterable<string>): AsyncGenerator<InputItem> {
  const parser = new CsvParser();
  let columns: Columns | undefined;
  const items = function* (records: CsvRecord[]): Generator<InputItem> {
    for (const record of records) {
      if (columns === undefined) columns = headerColumns(record);
      else yield csvItem(record, columns);
    }
  };
  for await (const chunk of chunks) yield* items(parser.push(chunk));
  yield* items(parser.end());
}
