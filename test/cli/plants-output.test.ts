import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plantTable } from '../../src/cli/plants-output.js';

test('plantTable aligns ids right and names left, and takes a list of any length', () => {
  assert.equal(
    plantTable([
      { id: 7n, name: 'Fern', tag: 'green' },
      { id: -9007199254740993n, name: 'Monstera' },
    ]),
    '               ID  NAME      TAG\n                7  Fern      green\n-9007199254740993  Monstera\n',
  );
  // More rows than a call may take arguments: Math.max(...widths) would overflow the stack.
  const many = Array.from({ length: 300_000 }, (_, i) => ({ id: BigInt(i), name: `p${i}` }));
  const lines = plantTable(many).split('\n');
  assert.equal(lines.length, 300_002);
  assert.equal(lines[300_000], '299999  p299999');
});
