/** Integer spellings in paths and queries: ASCII decimal, optional '-', leading zeros allowed. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { INT32_MAX, INT64_MAX, INT64_MIN, parseInt64, parseNonNegativeInt32 } from '../../src/plants/int64.js';

describe('parseInt64', () => {
  test('decimal integers in int64 range, exactly', () => {
    assert.equal(parseInt64('0'), 0n);
    assert.equal(parseInt64('-0'), 0n);
    assert.equal(parseInt64('7'), 7n);
    assert.equal(parseInt64('007'), 7n);
    assert.equal(parseInt64('-007'), -7n);
    assert.equal(parseInt64('9007199254740993'), 9007199254740993n);
    assert.equal(parseInt64('9223372036854775807'), INT64_MAX);
    assert.equal(parseInt64('-9223372036854775808'), INT64_MIN);
    assert.equal(parseInt64('0000000000000000000000009223372036854775807'), INT64_MAX);
  });

  test('out of range → undefined', () => {
    assert.equal(parseInt64('9223372036854775808'), undefined);
    assert.equal(parseInt64('-9223372036854775809'), undefined);
    assert.equal(parseInt64('9'.repeat(1000)), undefined);
  });

  test('other spellings → undefined', () => {
    for (const text of ['', '-', '+7', ' 7', '7 ', '1e2', '0x10', '0b1', '1.5', '1.0', '1_000', '--1', '٧', '７', '7\n', 'abc', '\u0000', '1:', ':', '/', '-1/']) {
      assert.equal(parseInt64(text), undefined, JSON.stringify(text));
    }
  });
});

describe('parseNonNegativeInt32', () => {
  test('0 … 2147483647 with leading zeros allowed', () => {
    assert.equal(parseNonNegativeInt32('0'), 0);
    assert.equal(parseNonNegativeInt32('000'), 0);
    assert.equal(parseNonNegativeInt32('007'), 7);
    assert.equal(parseNonNegativeInt32('2147483647'), INT32_MAX);
    assert.equal(parseNonNegativeInt32('00000000000002147483647'), INT32_MAX);
  });

  test('negative, over int32 and other spellings → undefined', () => {
    // ':' and '/' border the digits in ASCII.
    for (const text of ['-1', '-0', '2147483648', '99999999999', '9'.repeat(400), '', '+7', ' 7', '7 ', '1e2', '0x10', '1.5', '٧', '７', '1:', ':', '/', '1/']) {
      assert.equal(parseNonNegativeInt32(text), undefined, JSON.stringify(text));
    }
  });
});
