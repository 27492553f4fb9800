/**
 * Property-based fuzz of the HTTP surface (docs/fuzzing.md): generated requests against a live
 * server and a model of the store. Never a 5xx; every error the exact Error shape with the
 * status the contract names; the store equal to the model after each run.
 * PLANTSTORE_FUZZ_RUNS and PLANTSTORE_FUZZ_SEED run it longer or replay a failure.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { issueToken } from '../../src/auth/api-tokens.js';
import { send, type Answer } from '../helpers/fuzz/exchange.js';
import { PlantModel, parsable, plantText, type Expected } from '../helpers/fuzz/model.js';
import { fuzzRequest, type Credential, type FuzzRequest } from '../helpers/fuzz/requests.js';
import { startTestServer, storeKinds, uniqueName, type TestServer } from '../helpers/server.js';

const RUNS = Number(process.env.PLANTSTORE_FUZZ_RUNS ?? '30');
const SEED = process.env.PLANTSTORE_FUZZ_SEED === undefined ? Date.now() ^ (Math.random() * 2 ** 31) : Number(process.env.PLANTSTORE_FUZZ_SEED);
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The answer breaks no rule that holds for every request, whatever the model expects. */
function assertWellFormed(request: FuzzRequest, answer: Answer, what: string): void {
  assert.ok(answer.status < 500, `${what}: a ${answer.status}`);
  const requestId = answer.headers['x-request-id'];
  assert.ok(typeof requestId === 'string' && SANE_REQUEST_ID.test(requestId), `${what}: X-Request-Id ${String(requestId)}`);
  // Given twice, node joins the values with a comma, which is never a sane id.
  const given = request.headers.filter(([name]) => name === 'x-request-id');
  if (parsable(request) && given.length === 1 && SANE_REQUEST_ID.test(given[0]?.[1] ?? '')) assert.equal(requestId, given[0]?.[1], `${what}: a sane X-Request-Id is echoed`);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
  assert.equal(answer.headers['cache-control'], 'no-store', `${what}: no-store`);
  if (answer.status < 400 || request.method.toUpperCase() === 'HEAD') return;
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/, `${what}: Error media type`);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], `${what}: Error members`);
  assert.equal(body.error, answer.status, `${what}: Error.error`);
  assert.ok(typeof body.message === 'string' && body.message.length > 0 && !body.message.includes('\n'), `${what}: Error.message`);
}

function assertExpected(request: FuzzRequest, answer: Answer, expected: Expected, what: string): void {
  assert.equal(answer.status, expected.status, `${what}: status (body ${answer.body.slice(0, 200)})`);
  if (answer.status === 401) assert.match(String(answer.headers['www-authenticate']), /^Bearer realm="plantstore"/, what);
  if (answer.status === 405) assert.ok(typeof answer.headers.allow === 'string', `${what}: Allow`);
  if (request.method.toUpperCase() !== 'HEAD' && expected.body !== undefined) assert.equal(answer.body, expected.body, `${what}: body`);
  if (expected.link !== undefined) assert.equal(answer.headers.link ?? null, expected.link, `${what}: Link`);
  if (expected.location !== undefined) assert.equal(answer.headers.location, expected.location, `${what}: Location`);
}

/** A run's users: an owner with a writer and a reader token, another owner, and a revoked token. */
async function runUsers(server: TestServer): Promise<{ owners: Record<Credential, string | undefined>; tokens: Record<Credential, string | undefined> }> {
  const name = uniqueName('fuzz');
  const [writer, reader, other, revoked] = await Promise.all([
    server.user({ name }),
    server.user({ name, readOnly: true }),
    server.user({ name: uniqueName('fuzz-other') }),
    issueToken(server.running.store, { user: name }),
  ]);
  assert.ok(revoked !== undefined && (await server.running.store.revokeToken(revoked.record.id, new Date())));
  return {
    owners: { writer: name, reader: name, 'other-owner': other.name, revoked: undefined, none: undefined, malformed: undefined },
    tokens: { writer: writer.token, reader: reader.token, 'other-owner': other.token, revoked: revoked.token, none: undefined, malformed: undefined },
  };
}

for (const kind of storeKinds()) {
  describe(`fuzz of the HTTP surface on ${kind}`, () => {
    test(`generated requests: no 5xx, exact Error bodies, store equals the model (${RUNS} runs, seed ${SEED})`, { timeout: 600_000 }, async (t) => {
      const server = await startTestServer(t, kind);
      const statuses = new Map<number, number>();
      t.after(() => t.diagnostic(`statuses seen: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`));
      t.diagnostic(`replay with PLANTSTORE_FUZZ_SEED=${SEED} PLANTSTORE_FUZZ_RUNS=${RUNS}`);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fuzzRequest, fc.nat()), { minLength: 5, maxLength: 30 }), async (requests) => {
          const { owners, tokens } = await runUsers(server);
          const model = new PlantModel();
          for (const [i, [request, seed]] of requests.entries()) {
            const answer = await send(server.url, request, tokens[request.credential], seed);
            const what = `request ${i} ${request.method} ${request.path}${request.query === undefined ? '' : `?${request.query}`}`;
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            assertWellFormed(request, answer, what);
            assertExpected(request, answer, model.apply(request, owners), what);
          }
          for (const owner of new Set([owners.writer, owners['other-owner']])) {
            const token = owner === owners.writer ? tokens.writer : tokens['other-owner'];
            const listed = await fetch(`${server.url}/plants?fields=id,name,tag`, { headers: { authorization: `Bearer ${token}` } });
            const all = { id: true, name: true, tag: true };
            assert.equal(await listed.text(), `[${model.list(owner as string).map((p) => plantText(p, all)).join(',')}]`, `store of ${owner} equals the model`);
          }
        }),
        { numRuns: RUNS, seed: SEED, includeErrorInReport: true },
      );
    });
  });
}
