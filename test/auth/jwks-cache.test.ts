import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { JwksCache, type JwksFetchError } from '../../src/auth/jwks-cache.js';
import { JwtVerifier } from '../../src/auth/jwt.js';
import { ApiError } from '../../src/errors.js';
import { mint, signingKey } from './jwt-fixtures.js';

/** An HTTP server on 127.0.0.1 that answers every request with `answer`. */
async function provider(t: TestContext, answer: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
}

/** Verifies one token against the key set at `url`; returns the ApiError and what the log was told. */
async function failedVerification(url: string): Promise<{ error: ApiError; reported: string[] }> {
  const reported: string[] = [];
  const jwks = new JwksCache(new URL(url), { fetchTimeoutMs: 200, onFetchFailed: (error: JwksFetchError) => reported.push(error.message) });
  const verifier = new JwtVerifier({ keys: { jwks }, ownerClaim: 'sub' });
  const token = await mint(await signingKey('ES256'));
  const error = await verifier.verify(token).then(
    () => assert.fail('verified without a key set'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof ApiError);
  return { error, reported };
}

describe('fetching the key set', () => {
  const cases: { name: string; answer: (res: ServerResponse) => void; reason: RegExp }[] = [
    { name: 'an HTTP error status', answer: (res) => res.writeHead(500).end('oops'), reason: /answered HTTP 500/ },
    { name: 'a redirect (not followed)', answer: (res) => res.writeHead(302, { location: 'http://example.com/' }).end(), reason: /answered HTTP 302/ },
    { name: 'a body that is not JSON', answer: (res) => res.end('<html>'), reason: /did not send JSON/ },
    { name: 'JSON that is not a key set', answer: (res) => res.end('{"keys": "none"}'), reason: /not a JWK set/ },
    { name: 'no answer within the timeout', answer: () => undefined, reason: /did not answer within 200 ms/ },
  ];
  for (const { name, answer, reason } of cases) {
    test(`${name} gets 503 with Retry-After, and the reason is reported`, async (t) => {
      const { error, reported } = await failedVerification(await provider(t, answer));
      assert.equal(error.status, 503);
      assert.ok(Number(error.headers['retry-after']) >= 1);
      assert.equal(reported.length, 1);
      assert.match(reported[0] ?? '', reason);
    });
  }
});
