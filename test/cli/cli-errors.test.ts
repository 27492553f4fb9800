import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeFailure } from '../../src/cli/cli-errors.js';
import { PlantStoreError } from '../../src/client/index.js';

test("an error body's message from a proxy is printed as one line without control characters", () => {
  const failure = describeFailure(new PlantStoreError(502, 'upstream failed \u001b[31mred\r\n    at handler (proxy.js:1)'), 'http://127.0.0.1:8080');
  assert.deepEqual(failure, { line: 'upstream failed \uFFFD[31mred (HTTP 502)', exitCode: 1 });
  assert.equal(describeFailure(new Error('first\rsecond'), 'http://127.0.0.1:8080').line, 'first');
});
