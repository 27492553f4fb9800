/** The NewPlant rules, checked on parsed bodies; and how a stored plant is shown. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PlantValidationError, plantJson, repeatOrConflict, toNewPlant } from '../../src/plants/plant.js';
import { parseJson } from '../../src/util/strict-json.js';

const plantOf = (text: string) => toNewPlant(parseJson(text));
const invalid = (text: string, message?: string) =>
  assert.throws(() => plantOf(text), (error: unknown) => error instanceof PlantValidationError && (message === undefined || error.message === message), text);

describe('toNewPlant', () => {
  test('a valid NewPlant, with and without a tag; other fields dropped', () => {
    assert.deepEqual(plantOf('{"id":7,"name":"Fern","tag":"indoor"}'), { id: 7n, name: 'Fern', tag: 'indoor' });
    assert.deepEqual(plantOf('{"name":"Fern","id":-7,"extra":[1,2],"other":null}'), { id: -7n, name: 'Fern', tag: null });
  });

  test('id kept exactly across the int64 range; -0 is 0', () => {
    assert.equal(plantOf('{"id":9007199254740993,"name":"x"}').id, 9007199254740993n);
    assert.equal(plantOf('{"id":9223372036854775807,"name":"x"}').id, 9223372036854775807n);
    assert.equal(plantOf('{"id":-9223372036854775808,"name":"x"}').id, -9223372036854775808n);
    assert.equal(plantOf('{"id":-0,"name":"x"}').id, 0n);
  });

  test('id missing, string, fraction, exponent, null, other types, out of range → invalid', () => {
    for (const id of ['"7"', '1.5', '1.0', '1e3', '1E3', 'null', 'true', '[]', '{}', '9223372036854775808', '-9223372036854775809', '1' + '0'.repeat(5000)]) {
      invalid(`{"id":${id},"name":"x"}`);
    }
    invalid('{"name":"x"}');
  });

  test('name: 1–256 code points, surrogate pairs count once', () => {
    assert.equal(plantOf(JSON.stringify({ id: 1, name: '🌿'.repeat(256) })).name.length, 512);
    invalid(JSON.stringify({ id: 1, name: '🌿'.repeat(257) }));
    invalid(JSON.stringify({ id: 1, name: 'a'.repeat(257) }), '"name" must be 1 to 256 characters long.');
    invalid('{"id":1,"name":""}', '"name" must be 1 to 256 characters long.');
    invalid('{"id":1,"name":"x","tag":""}', '"tag" must be 1 to 64 characters long.');
  });

  test('name: required string', () => {
    for (const name of ['null', '1', 'true', '["x"]', '{}']) invalid(`{"id":1,"name":${name}}`, '"name" must be a string.');
    invalid('{"id":1}', '"name" is required.');
  });

  test('name and tag: only Unicode White_Space → invalid', () => {
    for (const space of [' ', '\u00a0', '\u1680', '\u2000', '\u2003', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\u0085', ' \u3000 ']) {
      invalid(JSON.stringify({ id: 1, name: space }));
      invalid(JSON.stringify({ id: 1, name: 'x', tag: space }));
    }
    // Not White_Space: a zero-width space and a BOM are characters of their own.
    assert.equal(plantOf(JSON.stringify({ id: 1, name: '\u200b' })).name, '\u200b');
  });

  test('name and tag: control characters U+0000–U+001F and U+007F → invalid', () => {
    for (let code = 0; code <= 0x1f; code++) {
      invalid(JSON.stringify({ id: 1, name: `a${String.fromCharCode(code)}b` }));
      invalid(JSON.stringify({ id: 1, name: 'x', tag: `a${String.fromCharCode(code)}b` }));
    }
    invalid(JSON.stringify({ id: 1, name: 'a\u007fb' }));
    assert.equal(plantOf(JSON.stringify({ id: 1, name: 'a\u0080b' })).name, 'a\u0080b');
  });

  test('name and tag: lone surrogates → invalid', () => {
    invalid('{"id":1,"name":"\\ud800"}');
    invalid('{"id":1,"name":"a\\udc00"}');
    invalid('{"id":1,"name":"x","tag":"\\udbff"}');
  });

  test('tag: 1–64 code points, string only; null and empty → invalid', () => {
    assert.equal(plantOf(JSON.stringify({ id: 1, name: 'x', tag: '🌱'.repeat(64) })).tag, '🌱'.repeat(64));
    invalid(JSON.stringify({ id: 1, name: 'x', tag: '🌱'.repeat(65) }));
    for (const tag of ['null', '""', '1', 'false', '["a"]', '{}']) invalid(`{"id":1,"name":"x","tag":${tag}}`);
  });

  test('a body that is not an object → invalid', () => {
    for (const text of ['[]', '[{"id":1,"name":"x"}]', '1', '"x"', 'null', 'true']) invalid(text);
  });
});

describe('showing a plant', () => {
  test('plantJson omits a missing tag and by default never shows the id', () => {
    assert.equal(plantJson({ id: 7n, name: 'Fern', tag: null }), '{"name":"Fern"}');
    assert.equal(plantJson({ id: 7n, name: 'Fern', tag: 'x' }), '{"name":"Fern","tag":"x"}');
    assert.equal(plantJson({ id: 7n, name: 'F"e\\rn\u2028', tag: 'a\u0000' }), JSON.stringify({ name: 'F"e\\rn\u2028', tag: 'a\u0000' }));
  });

  test('plantJson shows the fields asked for, the id as an exact integer', () => {
    const plant = { id: 9223372036854775807n, name: 'Fern', tag: 'x' };
    assert.equal(plantJson(plant, { id: true, name: true, tag: true }), '{"id":9223372036854775807,"name":"Fern","tag":"x"}');
    assert.equal(plantJson({ ...plant, id: -9223372036854775808n }, { id: true, name: false, tag: false }), '{"id":-9223372036854775808}');
    assert.equal(plantJson({ ...plant, tag: null }, { id: false, name: false, tag: true }), '{}');
  });

  test('repeatOrConflict compares name and tag, not id', () => {
    assert.equal(repeatOrConflict({ id: 1n, name: 'a', tag: null }, { name: 'a', tag: null }), 'unchanged');
    assert.equal(repeatOrConflict({ id: 1n, name: 'a', tag: null }, { name: 'a', tag: 'b' }), 'conflict');
    assert.equal(repeatOrConflict({ id: 1n, name: 'a', tag: 'b' }, { name: 'A', tag: 'b' }), 'conflict');
  });
});
