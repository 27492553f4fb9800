/** The lossless JSON parser: RFC 8259 corners, exact numbers, escapes, duplicate keys, nesting. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JsonNumber, JsonSyntaxError, parseJson, type JsonValue } from '../../src/util/strict-json.js';

/** The parsed value in plain JS terms: Maps as objects, numbers as their source text. */
function plain(value: JsonValue): unknown {
  if (value instanceof JsonNumber) return { number: value.text };
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [key, plain(item)]));
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

const rejects = (text: string) => assert.throws(() => parseJson(text), JsonSyntaxError, JSON.stringify(text));

describe('parseJson', () => {
  test('scalars, arrays and objects', () => {
    assert.equal(parseJson('true'), true);
    assert.equal(parseJson('false'), false);
    assert.equal(parseJson('null'), null);
    assert.equal(parseJson('"x"'), 'x');
    assert.deepEqual(plain(parseJson('[]')), []);
    assert.deepEqual(plain(parseJson('{}')), {});
    assert.deepEqual(plain(parseJson(' \t\r\n{ "a" : [ 1 , "b" , { "c" : null } ] , "d" : false } \n')), {
      a: [{ number: '1' }, 'b', { c: null }],
      d: false,
    });
  });

  test('numbers are kept exactly as written', () => {
    for (const text of ['0', '-0', '7', '-7', '9007199254740993', '-9223372036854775808', '123456789012345678901234567890', '1.5', '1.0', '1e3', '1E3', '-1.25e-10', '1E+2']) {
      const value = parseJson(text);
      assert.ok(value instanceof JsonNumber);
      assert.equal(value.text, text);
    }
  });

  test('isIntegerLiteral: no fraction, no exponent', () => {
    const integer = (text: string) => (parseJson(text) as JsonNumber).isIntegerLiteral;
    assert.equal(integer('9007199254740993'), true);
    assert.equal(integer('-0'), true);
    for (const text of ['1.0', '1e3', '1E3', '1e-0', '0.5']) assert.equal(integer(text), false, text);
  });

  test('bad numbers are rejected', () => {
    for (const text of ['01', '-', '+1', '.5', '1.', '1e', '1e+', '0x10', 'NaN', 'Infinity', '-Infinity', '1_000', '- 1', '00']) rejects(text);
  });

  test('string escapes', () => {
    assert.equal(parseJson('"\\"\\\\\\/\\b\\f\\n\\r\\t"'), '"\\/\b\f\n\r\t');
    assert.equal(parseJson('"\\u0041\\u00e9\\u20AC"'), 'Aé€');
    assert.equal(parseJson('"a\\u0000b"'), 'a\u0000b');
  });

  test('a surrogate pair escape becomes one code point', () => {
    const value = parseJson('"\\ud83c\\udf3f"');
    assert.equal(value, '\u{1F33F}');
    assert.equal([...(value as string)].length, 1);
  });

  test('lone surrogate escapes are kept for the caller to judge', () => {
    const value = parseJson('"\\ud83c"') as string;
    assert.equal(value.isWellFormed(), false);
  });

  test('bad escapes and raw control characters in strings are rejected', () => {
    for (const text of ['"\\x41"', '"\\u12"', '"\\u12G4"', '"\\U0041"', '"\\', '"\\"', '"a\nb"', '"a\tb"', '"a\u0000b"', '"a\u001fb"', '"abc', "'a'"]) rejects(text);
  });

  test('raw non-ASCII text is kept', () => {
    assert.equal(parseJson('"日本 🌿 \u00a0"'), '日本 🌿 \u00a0');
    // U+007F and U+2028 are legal unescaped in JSON strings.
    assert.equal(parseJson('"\u007f\u2028"'), '\u007f\u2028');
  });

  test('structural errors are rejected', () => {
    for (const text of ['', ' ', '{', '}', '[', '[1,]', '[,1]', '{"a":1,}', '{,}', '{"a"}', '{"a":}', '{a:1}', '{"a" 1}', '{1:1}', '[1 2]', '{"a":1 "b":2}', 'tru', 'nul', 'True', '{} {}', '[] x', '\u00a0{}', '\ufeff{}']) rejects(text);
  });

  test('duplicate keys at the top level are rejected, compared after unescaping', () => {
    rejects('{"a":1,"a":2}');
    rejects('{"name":"x","n\\u0061me":"y"}');
    rejects('{"\\u0069d":1,"id":1}');
    rejects('{"\\ud83c\\udf3f":1,"🌿":2}');
  });

  test('duplicate keys below the top level are allowed (those fields are ignored)', () => {
    assert.deepEqual(plain(parseJson('{"x":{"a":1,"a":2}}')), { x: { a: { number: '2' } } });
  });

  test('keys that look alike but differ are not duplicates', () => {
    assert.deepEqual(Object.keys(plain(parseJson('{"name":1,"Name":2,"name ":3}')) as object), ['name', 'Name', 'name ']);
  });

  test('__proto__ is an ordinary key', () => {
    const value = parseJson('{"__proto__":{"polluted":true},"constructor":1}') as Map<string, JsonValue>;
    assert.ok(value.has('__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('nesting up to 64 levels is accepted, deeper is rejected without overflowing the stack', () => {
    assert.doesNotThrow(() => parseJson('['.repeat(64) + ']'.repeat(64)));
    assert.doesNotThrow(() => parseJson('{"a":'.repeat(63) + '{}' + '}'.repeat(63)));
    rejects('['.repeat(65) + ']'.repeat(65));
    rejects('{"a":'.repeat(65) + '1' + '}'.repeat(65));
    rejects('['.repeat(100_000));
  });

  test('errors say where', () => {
    assert.throws(() => parseJson('{"a":1,}'), /position 7/);
  });
});
