/**
 * Property-based fuzz below fetch (docs/fuzzing.md): raw requests with faults in the request
 * line, the headers, the line endings and the framing. Each gets an answer, never a 5xx; every
 * error is the exact Error shape, even those node's parser raises; the store does not change.
 * PLANTSTORE_FUZZ_RUNS and PLANTSTORE_FUZZ_SEED as for fuzz.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { rawExchange } from '../helpers/raw-http.js';
import { firstAnswer, wireBytes, wireRequest } from '../helpers/fuzz/wire.js';
import { startTestServer, storeKinds } from '../helpers/server.js';

const RUNS = Number(process.env.PLANTSTORE_FUZZ_RUNS ?? '150');
const SEED = process.env.PLANTSTORE_FUZZ_SEED === undefined ? Date.now() ^ (Math.random() * 2 ** 31) : Number(process.env.PLANTSTORE_FUZZ_SEED);

for (const kind of storeKinds()) {
  describe(`fuzz of the wire on ${kind}`, () => {
    test(`malformed requests: an answer, no 5xx, exact Error bodies, nothing stored (${RUNS} runs, seed ${SEED})`, { timeout: 600_000 }, async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      assert.equal((await user.request('/plants', { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 200);
      t.diagnostic(`replay with PLANTSTORE_FUZZ_SEED=${SEED} PLANTSTORE_FUZZ_RUNS=${RUNS}`);
      const statuses = new Map<number, number>();
      t.after(() => t.diagnostic(`statuses seen: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`));
      await fc.assert(
        fc.asyncProperty(wireRequest(user.token), async (request) => {
          const bytes = await rawExchange(server.url, wireBytes(request), 3_000);
          const answer = firstAnswer(bytes);
          assert.ok(answer !== undefined, `an answer, not ${JSON.stringify(bytes.slice(0, 120))}`);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          assert.ok(answer.status < 500, `a ${answer.status}: ${answer.body}`);
          assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', `nosniff on ${answer.status}`);
          assert.equal(answer.headers.get('cache-control'), 'no-store', `no-store on ${answer.status}`);
          if (answer.status < 400 || request.method === 'HEAD') return;
          assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `${answer.status}: ${bytes.slice(0, 200)}`);
          const body = JSON.parse(answer.body) as Record<string, unknown>;
          assert.deepEqual(Object.keys(body).sort(), ['error', 'message']);
          assert.equal(body.error, answer.status);
          assert.ok(typeof body.message === 'string' && body.message !== '');
        }),
        { numRuns: RUNS, seed: SEED, includeErrorInReport: true },
      );
      const listed = await user.request('/plants?fields=id,name,tag');
      assert.equal(await listed.text(), '[{"id":1,"name":"Fern"}]', 'the store is as it was');
    });
  });
}
