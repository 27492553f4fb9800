import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatOfPath, readPlants, type ImportFormat, type InputItem } from '../../src/cli/plant-input.js';

/** `input` as a stream of chunks of `size` bytes. */
async function* inChunks(input: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < input.length; at += size) yield input.subarray(at, at + size);
}

async function read(text: string | Uint8Array, format?: ImportFormat, chunkSize = 3): Promise<InputItem[]> {
  const out: InputItem[] = [];
  for await (const item of readPlants(inChunks(typeof text === 'string' ? new TextEncoder().encode(text) : text, chunkSize), format)) out.push(item);
  return out;
}

/** The items read before the input is refused with a UsageError saying `message`. */
async function itemsUntilRefused(chunks: AsyncIterable<Uint8Array>, format: ImportFormat, message: string): Promise<InputItem[]> {
  const items: InputItem[] = [];
  await assert.rejects(async () => {
    for await (const item of readPlants(chunks, format)) items.push(item);
  }, { name: 'UsageError', message });
  return items;
}

describe('readPlants', () => {
  test('JSON Lines: exact ids, optional tag, blank lines and CRLF skipped, line numbers kept', async () => {
    assert.deepEqual(await read('{"id":-9223372036854775808,"name":"é"}\r\n\n{"id":9007199254740993,"name":"b","tag":"t"}'), [
      { line: 1, plant: { id: -(2n ** 63n), name: 'é' } },
      { line: 3, plant: { id: 2n ** 53n + 1n, name: 'b', tag: 't' } },
    ]);
  });

  test('JSON Lines: a duplicate key is refused, as the service would', async () => {
    assert.deepEqual(await read('{"id":1,"name":"a","name":"b"}\n'), [{ line: 1, refused: 'not JSON: duplicate key "name" at position 25.' }]);
  });

  test('CSV: a UTF-8 byte order mark and header case are ignored; an empty tag is no tag', async () => {
    assert.deepEqual(await read('\uFEFFID,Name,Tag\n1,é,\n2,b,x\n'), [
      { line: 2, plant: { id: 1n, name: 'é' } },
      { line: 3, plant: { id: 2n, name: 'b', tag: 'x' } },
    ]);
  });

  test('CSV without a tag column', async () => {
    assert.deepEqual(await read('id,name\n007,a\n', 'csv'), [{ line: 2, plant: { id: 7n, name: 'a' } }]);
  });

  test('the format follows --format, else the first character', async () => {
    assert.deepEqual(await read('  {"id":1,"name":"a"}'), [{ line: 1, plant: { id: 1n, name: 'a' } }]);
    await assert.rejects(read('{"id":1,"name":"a"}', 'csv'), { name: 'UsageError', message: /^the CSV header on line 1 cannot be read/ });
    assert.deepEqual(await read(''), []);
  });

  test('a JSON array, as plants list --json writes, stops with a usage error that says how to convert it', async () => {
    for (const format of ['jsonl', undefined] as const) {
      await assert.rejects(read('[{"id":1,"name":"a"}]\n', format), { name: 'UsageError', message: /^the input is a JSON array; import reads JSON Lines/ });
    }
  });

  test('input that is not UTF-8 stops with a usage error naming its line', async () => {
    await assert.rejects(read(new Uint8Array([0x7b, 0xc3, 0x28])), { name: 'UsageError', message: 'line 1 is not valid UTF-8' });
    const endsInsideACharacter = Buffer.concat([Buffer.from('{"id":1,"name":"caf\u00e9"}\n\n{"id":2,"name":"'), Buffer.from([0xc3])]);
    await assert.rejects(read(endsInsideACharacter), { name: 'UsageError', message: 'line 3 is not valid UTF-8' });
  });

  test('the lines before bytes that are not UTF-8 are read first, whatever chunks the bytes come in', async () => {
    const good = Array.from({ length: 50 }, (_, i) => `{"id":${i + 1},"name":"pl\u00e4nt ${i + 1}"}\n`).join('');
    const input = Buffer.concat([Buffer.from(`\uFEFF${good}`), Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), Buffer.from('{"id":99,"name":"after"}\n')]);
    for (const size of [1, 7, 64, input.length]) {
      const items = await itemsUntilRefused(inChunks(input, size), 'jsonl', 'line 51 is not valid UTF-8');
      for (const item of items) assert.ok('plant' in item && item.plant.name === `pl\u00e4nt ${item.line}`, `line ${item.line}`);
      assert.equal(items.length, 50, `chunks of ${size} bytes`);
    }
  });

  for (const [endings, eol] of [['CR', '\r'], ['CRLF', '\r\n'], ['LF', '\n']] as const) {
    test(`CSV with ${endings} line endings: the line that is not UTF-8 is named, the lines before it read`, async () => {
      const good = Buffer.from(['id,name', '1,a', '2,b', '3,c', ''].join(eol));
      const input = Buffer.concat([good, Buffer.from('4,'), Buffer.from([0x8e]), Buffer.from(`t${eol}5,e${eol}`)]);
      for (const size of [1, 2, 5, input.length]) {
        const items = await itemsUntilRefused(inChunks(input, size), 'csv', 'line 5 is not valid UTF-8');
        assert.deepEqual(items.map((item) => item.line), [2, 3, 4], `chunks of ${size} bytes`);
      }
    });
  }
});

test('formatOfPath', () => {
  assert.equal(formatOfPath('a/plants.CSV'), 'csv');
  assert.equal(formatOfPath('plants.jsonl'), 'jsonl');
  assert.equal(formatOfPath('plants.ndjson'), 'jsonl');
  assert.equal(formatOfPath('plants.txt'), undefined);
});
