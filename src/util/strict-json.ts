/**
 * A strict JSON parser (RFC 8259) that keeps numbers as their source text, so an int64 id
 * survives exactly (JSON.parse rounds integers above 2^53), and that rejects duplicate keys
 * at the top level, compared after unescaping.
 */

/** A JSON number kept as written; `JsonNumber.text` is its exact source. */
export class JsonNumber {
  constructor(readonly text: string) {}
  /** True when the literal has no fraction and no exponent. */
  get isIntegerLiteral(): boolean {
    return !/[.eE]/.test(this.text);
  }
}

export type JsonValue = string | boolean | null | JsonNumber | JsonValue[] | JsonObject;
type JsonObject = Map<string, JsonValue>;

export class JsonSyntaxError extends Error {}

const MAX_DEPTH = 64;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Parses one JSON text. Throws JsonSyntaxError with a short reason. */
export function parseJson(text: string): JsonValue {
  let pos = 0;
  // Sticky, and so stateful (lastIndex): one per parse.
  const numberToken = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at position ${pos}`);
  };
  const skipWhitespace = () => {
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else return;
    }
  };
  const expect = (literal: string) => {
    if (!text.startsWith(literal, pos)) fail('unexpected character');
    pos += literal.length;
  };

  const parseString = (): string => {
    pos++; // opening quote
    let out = '';
    let start = pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (Number.isNaN(c)) fail('unterminated string');
      if (c === 0x22) {
        out += text.slice(start, pos);
        pos++;
        return out;
      }
      if (c < 0x20) fail('unescaped control character in string');
      if (c !== 0x5c) {
        pos++;
        continue;
      }
      out += text.slice(start, pos);
      const escape = text[pos + 1];
      if (escape === 'u') {
        const hex = text.slice(pos + 2, pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
        out += String.fromCharCode(parseInt(hex, 16));
        pos += 6;
      } else {
        const decoded = escape === undefined ? undefined : ESCAPES[escape];
        if (decoded === undefined) fail('bad escape');
        out += decoded;
        pos += 2;
      }
      start = pos;
    }
  };

  const parseValue = (depth: number): JsonValue => {
    skipWhitespace();
    const c = text[pos];
    switch (c) {
      case '{':
        return parseObject(depth + 1);
      case '[':
        return parseArray(depth + 1);
      case '"':
        return parseString();
      case 't':
        expect('true');
        return true;
      case 'f':
        expect('false');
        return false;
      case 'n':
        expect('null');
        return null;
      default: {
        numberToken.lastIndex = pos;
        const match = numberToken.exec(text);
        if (match === null) return fail(c === undefined ? 'unexpected end of input' : 'unexpected character');
        pos += match[0].length;
        return new JsonNumber(match[0]);
      }
    }
  };

  const parseArray = (depth: number): JsonValue[] => {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    pos++;
    const items: JsonValue[] = [];
    skipWhitespace();
    if (text[pos] === ']') {
      pos++;
      return items;
    }
    for (;;) {
      items.push(parseValue(depth));
      skipWhitespace();
      const c = text[pos++];
      if (c === ']') return items;
      if (c !== ',') fail('expected , or ]');
    }
  };

  const parseObject = (depth: number): JsonObject => {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    pos++;
    const object: JsonObject = new Map();
    skipWhitespace();
    if (text[pos] === '}') {
      pos++;
      return object;
    }
    for (;;) {
      skipWhitespace();
      if (text[pos] !== '"') fail('expected a string key');
      const key = parseString();
      if (depth === 1 && object.has(key)) fail(`duplicate key "${key}"`);
      skipWhitespace();
      if (text[pos++] !== ':') fail('expected :');
      object.set(key, parseValue(depth));
      skipWhitespace();
      const c = text[pos++];
      if (c === '}') return object;
      if (c !== ',') fail('expected , or }');
    }
  };

  const value = parseValue(0);
  skipWhitespace();
  if (pos !== text.length) fail('unexpected data after the JSON value');
  return value;
}
