import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, test, type TestContext } from 'node:test';
import { JwksCache, type JwksFetchError } from '../../src/auth/jwks-cache.js';
import { JwtVerifier } from '../../src/auth/jwt.js';
import { ApiError } from '../../src/errors.js';
import { mint, signingKey, startJwksServer } from './jwt-fixtures.js';

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

const MIB = 1024 * 1024;

/** Sends spaces for as long as the client reads them. */
function endless(res: ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 32);
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', pump);
  pump();
}

/** The timeout of the case that tests it; the other cases must fail for their own reason, however slow the host. */
const SHORT_TIMEOUT_MS = 200;
const LONG_TIMEOUT_MS = 60_000;

/** Verifies one token against the key set at `url`; returns the ApiError and what the log was told. */
async function failedVerification(url: string, fetchTimeoutMs: number): Promise<{ error: ApiError; reported: string[] }> {
  const reported: string[] = [];
  const jwks = new JwksCache(new URL(url), { fetchTimeoutMs, onFetchFailed: (error: JwksFetchError) => reported.push(error.message) });
  const verifier = new JwtVerifier({ keys: { jwks }, ownerClaim: 'sub' });
  const token = await mint(await signingKey('ES256'));
  const error = await verifier.verify(token).then(
    () => assert.fail('verified without a key set'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof ApiError);
  return { error, reported };
}

/** Made once: zipping 8 MiB inside the provider's handler took time out of the fetch. */
const GZIPPED_8_MIB = gzipSync(Buffer.alloc(8 * MIB, 32));

describe('fetching the key set', () => {
  const cases: { name: string; answer: (res: ServerResponse) => void; reason: RegExp; timeoutMs?: number }[] = [
    { name: 'an HTTP error status', answer: (res) => res.writeHead(500).end('oops'), reason: /answered HTTP 500/ },
    { name: 'a redirect (not followed)', answer: (res) => res.writeHead(302, { location: 'http://example.com/' }).end(), reason: /answered HTTP 302/ },
    { name: 'a body that is not JSON', answer: (res) => res.end('<html>'), reason: /did not send JSON/ },
    { name: 'JSON that is not a key set', answer: (res) => res.end('{"keys": "none"}'), reason: /not a JWK set/ },
    { name: 'no answer within the timeout', answer: () => undefined, reason: /did not answer within 200 ms/, timeoutMs: SHORT_TIMEOUT_MS },
    { name: 'a Content-Length over 1 MiB', answer: (res) => res.writeHead(200, { 'content-length': 2 * MIB }).end(Buffer.alloc(2 * MIB, 32)), reason: /sent more than 1048576 bytes/ },
    { name: 'more than 1 MiB once decompressed', answer: (res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(GZIPPED_8_MIB), reason: /sent more than 1048576 bytes/ },
    // Read to its end, it would never end: given up on at 1 MiB, well before the timeout.
    { name: 'an endless body', answer: endless, reason: /sent more than 1048576 bytes/ },
  ];
  for (const { name, answer, reason, timeoutMs = LONG_TIMEOUT_MS } of cases) {
    test(`${name} gets 503 with Retry-After, and the reason is reported`, async (t) => {
      const { error, reported } = await failedVerification(await provider(t, answer), timeoutMs);
      assert.equal(error.status, 503);
      assert.ok(Number(error.headers['retry-after']) >= 1);
      assert.equal(reported.length, 1);
      assert.match(reported[0] ?? '', reason);
    });
  }
});

describe('keeping the key set fresh', () => {
  test('a key the provider withdrew stops working once the set is older than its maximum age', async (t) => {
    const [withdrawn, kept] = [await signingKey('ES256'), await signingKey('ES256')];
    const provider = await startJwksServer(t, [withdrawn, kept]);
    const jwks = new JwksCache(new URL(provider.url), { maxAgeMs: 300, refetchIntervalMs: 100 });
    const verifier = new JwtVerifier({ keys: { jwks }, ownerClaim: 'sub' });
    const token = await mint(withdrawn);
    await verifier.verify(token);
    provider.publish([kept]); // no new kid arrives to make plantstore look again
    await new Promise((resolve) => setTimeout(resolve, 400));
    await verifier.verify(token); // the stale set still answers while it is fetched again
    for (let waited = 0; provider.fetches < 2; waited += 20) {
      assert.ok(waited < 5_000, 'the stale set was fetched again');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The set the provider served reaches the cache a moment later; until then the stale one answers.
    let refused: unknown;
    for (let waited = 0; refused === undefined; waited += 20) {
      assert.ok(waited < 5_000, 'a withdrawn key still verified');
      await new Promise((resolve) => setTimeout(resolve, 20));
      refused = await verifier.verify(token).then(
        () => undefined,
        (error: unknown) => error,
      );
    }
    assert.ok(refused instanceof ApiError && refused.status === 401, String(refused));
    await verifier.verify(await mint(kept));
  });
});
