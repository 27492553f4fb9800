import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CLIENT_TYPES_PATH, generateClientTypes } from '../../scripts/client-types.js';

test('src/client/openapi-types.ts is what openapi-typescript makes of the current OpenAPI document (else run npm run client:types)', async () => {
  const committed = readFileSync(CLIENT_TYPES_PATH, 'utf8');
  const fresh = await generateClientTypes();
  assert.ok(committed === fresh, 'src/client/openapi-types.ts is stale: run `npm run client:types` and commit the result');
});

test('the generated types keep int64 as bigint', () => {
  const committed = readFileSync(CLIENT_TYPES_PATH, 'utf8');
  assert.match(committed, /NewPlant: \{[^}]*?id: bigint;/s);
});
