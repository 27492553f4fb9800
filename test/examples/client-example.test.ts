import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { startTestServer } from '../helpers/server.js';

const EXAMPLE = fileURLToPath(new URL('../../../examples/client.mjs', import.meta.url));

test('node examples/client.mjs creates, pages through and deletes plants with exact 64-bit ids', async (t) => {
  const server = await startTestServer(t);
  const user = await server.user();
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [EXAMPLE], {
    env: { ...process.env, PLANTSTORE_URL: server.url, PLANTSTORE_TOKEN: user.token },
  });
  assert.equal(stderr, '');
  assert.equal(
    stdout,
    [
      'created -9223372036854775807 Welwitschia',
      'created 9007199254740995 Monstera deliciosa',
      'created 9223372036854775807 Dragon tree, "Dracaena"',
      'page 1: -9223372036854775807, 9007199254740995',
      'page 2: 9223372036854775807',
      'deleted -9223372036854775807',
      'deleted 9007199254740995',
      'deleted 9223372036854775807',
      '',
    ].join('\n'),
  );
  assert.equal(await (await user.request('/plants')).text(), '[]');
});

test('the example reports a refusal in one line and exits 1', async (t) => {
  const server = await startTestServer(t);
  const reader = await server.user({ readOnly: true });
  const run = promisify(execFile)(process.execPath, [EXAMPLE], { env: { ...process.env, PLANTSTORE_URL: server.url, PLANTSTORE_TOKEN: reader.token } });
  await assert.rejects(run, (error: { code?: number; stderr?: string }) => {
    assert.equal(error.code, 1);
    assert.match(error.stderr ?? '', /^plantstore refused: 403 The bearer token lacks the scope plants:write that this operation needs\.\n$/);
    return true;
  });
});
