import assert from 'node:assert/strict';

/**
 * An Error body: application/json, exactly {error: <the status>, message: one non-empty
 * sentence}, with no stack, SQL or source path in it. Returns the body.
 */
export async function assertError(response: Response, status: number, what = ''): Promise<Record<string, unknown>> {
  assert.equal(response.status, status, what);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/, what);
  const body = (await response.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], what);
  assert.equal(body.error, status, what);
  assert.equal(typeof body.message, 'string', what);
  assert.notEqual(body.message, '', what);
  assert.doesNotMatch(body.message as string, /\n|\bat .*\(|SELECT|INSERT|SQLITE|\/src\/|\.ts\b|\.js\b/i, 'no stack, SQL or path');
  return body;
}
