/**
 * Two plantstore processes on one database (a PostgreSQL database, or one SQLite file) behave
 * as one service: concurrent creates across them have one winner, a revocation on one counts
 * on the other at once, and a plant made on one is listed and deleted on the other.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { issueToken } from '../../src/auth/api-tokens.js';
import { openStore } from '../../src/store/open-store.js';
import { runCli, startServerProcess } from '../helpers/process.js';
import { join } from 'node:path';
import { authorizedFetch, postgresUrlOrSkipReason, tempDir, uniqueName } from '../helpers/server.js';

const postgres = postgresUrlOrSkipReason();

async function twoInstancesAndAUser(t: TestContext, databaseUrl: string) {
  const env = { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' };
  const [a, b] = await Promise.all([startServerProcess(t, env), startServerProcess(t, env)]);
  const store = await openStore({ databaseUrl, databasePoolSize: 1 });
  t.after(() => store.close());
  const issued = await issueToken(store, { user: uniqueName() });
  if (issued === undefined) throw new Error('no token issued');
  const on = (instance: { url: string }) => (path: string, init?: RequestInit & { json?: unknown }) =>
    authorizedFetch(instance.url + path, issued.token, init);
  return { databaseUrl, token: issued, a: on(a), b: on(b) };
}

const databases: [string, (t: TestContext) => string, string | undefined][] = [
  ['one SQLite file', (t) => `sqlite:${join(tempDir(t), 'plantstore.db')}`, undefined],
  ['one PostgreSQL database', () => postgres.url as string, postgres.reason],
];

for (const [database, urlFor, skip] of databases) describe(`two instances on ${database}`, { skip }, () => {
  test('50 concurrent creates of one id with different bodies, spread over both, give exactly one 200', async (t) => {
    const { a, b } = await twoInstancesAndAUser(t, urlFor(t));
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b)('/plants', { method: 'POST', json: { id: 77, name: `body ${i}` } })),
    );
    const statuses = responses.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 200).length, 1, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((status) => status === 409).length, 49);
    const winner = await responses[statuses.indexOf(200)]?.json();
    for (const side of [a, b]) assert.deepEqual(await (await side('/plants')).json(), [winner]);
  });

  test('a token revoked through one instance is refused by the other on the next request', async (t) => {
    const { databaseUrl, token, a, b } = await twoInstancesAndAUser(t, urlFor(t));
    assert.equal((await a('/plants')).status, 200);
    assert.equal((await b('/plants')).status, 200);
    const revoked = await runCli(['token', 'revoke', token.record.id], { DATABASE_URL: databaseUrl });
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal((await b('/plants')).status, 401);
    assert.equal((await a('/plants')).status, 401);
  });

  test('a plant created on one instance is listed and deletable on the other', async (t) => {
    const { a, b } = await twoInstancesAndAUser(t, urlFor(t));
    assert.equal((await a('/plants', { method: 'POST', json: '{"id":9007199254740993,"name":"Fern","tag":"green"}' })).status, 200);
    assert.deepEqual(await (await b('/plants')).json(), [{ name: 'Fern', tag: 'green' }]);
    assert.equal((await b('/plants/9007199254740993', { method: 'DELETE' })).status, 204);
    assert.deepEqual(await (await a('/plants')).json(), []);
    assert.equal((await a('/plants/9007199254740993', { method: 'DELETE' })).status, 404);
  });
});
