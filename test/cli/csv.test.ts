import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CsvParser, csvRow, type CsvRecord } from '../../src/cli/csv.js';

/** Parses `text` fed in chunks of `size` characters. */
function parse(text: string, size = text.length || 1): CsvRecord[] {
  const parser = new CsvParser();
  const out: CsvRecord[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...parser.push(text.slice(i, i + size)));
  return [...out, ...parser.end()];
}

describe('CsvParser', () => {
  test('plain rows, with the line each starts on; blank lines are skipped', () => {
    assert.deepEqual(parse('id,name,tag\n1,Fern,\n\n2,Cactus,desert\n'), [
      { line: 1, fields: ['id', 'name', 'tag'] },
      { line: 2, fields: ['1', 'Fern', ''] },
      { line: 4, fields: ['2', 'Cactus', 'desert'] },
    ]);
  });

  test('quoted fields keep commas, doubled quotes and line breaks (CRLF too)', () => {
    assert.deepEqual(parse('1,"Monstera, ""big""",x\r\n2,"two\r\nlines",\r\n3,"",""'), [
      { line: 1, fields: ['1', 'Monstera, "big"', 'x'] },
      { line: 2, fields: ['2', 'two\r\nlines', ''] },
      { line: 4, fields: ['3', '', ''] },
    ]);
  });

  test('the same records whatever the chunk boundaries', () => {
    const text = 'id,name\r\n1,"a ""q"", b"\r\n\r\n2,"x\ny"\n3,z';
    const whole = parse(text);
    for (const size of [1, 2, 3, 5, 7]) assert.deepEqual(parse(text, size), whole, `chunks of ${size}`);
    assert.deepEqual(whole.map((r) => r.line), [1, 2, 4, 6]);
  });

  test('a last row without a newline, and a trailing empty field', () => {
    assert.deepEqual(parse('1,a,'), [{ line: 1, fields: ['1', 'a', ''] }]);
  });

  test('malformed rows are reported with their line and parsing goes on', () => {
    assert.deepEqual(parse('1,ab"c,x\n2,"a"b,x\n3,ok,\n4,"never closed\n'), [
      { line: 1, fields: [], error: 'a quote inside an unquoted field (quote the whole field and double the quote)' },
      { line: 2, fields: [], error: 'text after a closing quote' },
      { line: 3, fields: ['3', 'ok', ''] },
      { line: 4, fields: [], error: 'a quoted field that is never closed' },
    ]);
  });

  test('a stray quote that takes in the lines after it names every line it took', () => {
    assert.deepEqual(parse('7,"Monstera, big\n8,Fern,\n9,"Pothos",x\n10,Ivy,\n'), [
      { line: 1, fields: [], error: 'text after a closing quote; the quote opened on line 1 took in every line up to 3' },
      { line: 4, fields: ['10', 'Ivy', ''] },
    ]);
    assert.deepEqual(parse('1,ok,\n7,"Monstera\n8,Fern,\n9,Pothos,\n'), [
      { line: 1, fields: ['1', 'ok', ''] },
      { line: 2, fields: [], error: 'a quoted field that is never closed; the quote opened on line 2 took in every line up to 4' },
    ]);
    // The line the runaway quote opened on, not the record's first; no runaway, no such words.
    assert.deepEqual(parse('1,"two\nlines","runaway\n2,Fern,\n3,"x"y\n'), [
      { line: 1, fields: [], error: 'text after a closing quote; the quote opened on line 2 took in every line up to 4' },
    ]);
    assert.deepEqual(parse('1,"a\nb",x"y\n'), [
      { line: 1, fields: [], error: 'a quote inside an unquoted field (quote the whole field and double the quote)' },
    ]);
  });

  test('with CRLF line ends, a runaway quote names the last line it took, not the one after', () => {
    assert.deepEqual(parse('1,ok,\r\n7,"Monstera\r\n8,Fern,\r\n'), [
      { line: 1, fields: ['1', 'ok', ''] },
      { line: 2, fields: [], error: 'a quoted field that is never closed; the quote opened on line 2 took in every line up to 3' },
    ]);
  });

  test('a row that starts with a quoted field holds nothing of the row before', () => {
    assert.deepEqual(parse('1,Fern\n"2",Ivy\n3,a"b\n"4",Moss\n'), [
      { line: 1, fields: ['1', 'Fern'] },
      { line: 2, fields: ['2', 'Ivy'] },
      { line: 3, fields: [], error: 'a quote inside an unquoted field (quote the whole field and double the quote)' },
      { line: 4, fields: ['4', 'Moss'] },
    ]);
  });
});

describe('csvRow', () => {
  test('quotes only the fields that need it, and parses back to the same fields', () => {
    const fields = ['-9223372036854775808', 'Dragon tree, "Dracaena"', 'plain', '', 'a\nb'];
    const line = csvRow(fields);
    assert.equal(line, '-9223372036854775808,"Dragon tree, ""Dracaena""",plain,,"a\nb"\n');
    assert.deepEqual(parse(line), [{ line: 1, fields }]);
  });

  test('a field with a lone carriage return is quoted, for a bare CR ends a line too', () => {
    const fields = ['1', 'a\rb', ''];
    assert.equal(csvRow(fields), '1,"a\rb",\n');
    assert.deepEqual(parse(csvRow(fields)), [{ line: 1, fields }]);
  });
});
