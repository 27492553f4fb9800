import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { buildAuthenticator } from '../../src/auth/build-authenticator.js';
import { JWKS_REFETCH_INTERVAL_MS } from '../../src/auth/jwks-cache.js';
import { ApiError } from '../../src/errors.js';
import { startTestServer } from '../helpers/server.js';
import { call, mint, signingKey, startJwksServer, trustKeySet } from './jwt-fixtures.js';

describe('the identity provider is unreachable', { concurrency: true }, () => {
  test('cached keys keep working; a key not cached gets 503 with Retry-After; all works again once it is back', async (t) => {
    const cached = await signingKey('RS256');
    const rotated = await signingKey('RS256');
    const jwks = await startJwksServer(t, [cached]);
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url));
    const cachedToken = await mint(cached);
    const rotatedToken = await mint(rotated);
    assert.equal((await call(server.url, cachedToken, '/plants', { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 200);

    await jwks.stop();
    await sleep(JWKS_REFETCH_INTERVAL_MS + 100);
    assert.equal((await call(server.url, cachedToken, '/plants')).status, 200);
    const down = await call(server.url, rotatedToken, '/plants');
    assert.equal(down.status, 503);
    const retryAfter = Number(down.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 5, `Retry-After ${retryAfter}`);
    assert.equal(down.headers.get('content-type'), 'application/json');
    const body = (await down.json()) as { error: number; message: string };
    assert.equal(body.error, 503);
    assert.match(body.message, /identity provider/);
    // Within the interval plantstore does not ask again; the answer stays 503, not 401.
    assert.equal((await call(server.url, rotatedToken, '/plants')).status, 503);
    assert.equal((await call(server.url, cachedToken, '/plants/1', { method: 'DELETE' })).status, 204);

    jwks.publish([cached, rotated]);
    await jwks.restart();
    await sleep(retryAfter * 1000);
    assert.equal((await call(server.url, rotatedToken, '/plants')).status, 200);
    assert.equal((await call(server.url, cachedToken, '/plants')).status, 200);
  });

  test('a request refused with 503 while the provider is down is logged as one line with the reason, no stack', async (t) => {
    const key = await signingKey('ES256');
    const jwks = await startJwksServer(t, [key]);
    await jwks.stop();
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _encoding, done) => done(void lines.push(chunk.toString())) }));
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url), logger);
    assert.equal((await call(server.url, await mint(key), '/plants')).status, 503);
    const failed = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.msg === 'request failed');
    assert.ok(failed !== undefined, 'the refusal is logged');
    assert.equal(failed.level, 40);
    assert.match(String(failed.reason), /identity provider/);
    assert.equal(failed.err, undefined, 'no error object, so no stack');
    assert.doesNotMatch(lines.join(''), /\n\s+at /, 'no stack frame anywhere');
  });

  test('the first token gets 503 when the key set was never fetched, and the log says why without the token', async (t) => {
    const key = await signingKey('ES256');
    const jwks = await startJwksServer(t, [key]);
    await jwks.stop();
    const server = await startTestServer(t, 'sqlite', trustKeySet(jwks.url));
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _encoding, done) => done(void lines.push(chunk.toString())) }));
    const authenticator = buildAuthenticator(server.settings, server.running.store, logger);
    const token = await mint(key);

    const failure = await Promise.resolve(authenticator.authorize(`Bearer ${token}`, 'plants:read')).then(
      () => assert.fail('a token was accepted while its key set could not be fetched'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof ApiError);
    assert.equal(failure.status, 503);
    assert.ok(Number(failure.headers['retry-after']) >= 1);
    const warning = lines.map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string }).find((entry) => entry.level === 40);
    assert.ok(warning !== undefined, 'a warning is logged');
    assert.match(warning.msg, /identity provider key set/);
    assert.match(warning.reason ?? '', /ECONNREFUSED/);
    assert.ok(!lines.join('').includes(token), 'the token is never logged');
  });
});
