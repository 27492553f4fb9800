/** GET /plants: ordering, `limit`, `after`, the `Link: rel="next"` header, and walking it. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestServer, storeKinds, type TestUser } from '../helpers/server.js';

async function create(user: TestUser, id: bigint | number | string, name = `Plant ${id}`): Promise<void> {
  const response = await user.request('/plants', { method: 'POST', json: `{"id":${id},"name":${JSON.stringify(name)}}` });
  assert.equal(response.status, 200, `create ${id}`);
}

/** Follows `next` links from `first`, running `churn` (and waiting for it) between pages; the names seen, in order. */
async function walkLinks(user: TestUser, first: string, churn: (step: number, seen: number) => Promise<unknown>[]): Promise<{ seen: string[]; pages: number }> {
  const seen: string[] = [];
  let next: string | undefined = first;
  let pages = 0;
  while (next !== undefined) {
    const response = await user.request(next);
    assert.equal(response.status, 200);
    seen.push(...((await response.json()) as { name: string }[]).map((plant) => plant.name));
    next = nextLink(response);
    await Promise.all(churn(pages, seen.length));
    pages++;
  }
  return { seen, pages };
}

async function get(user: TestUser, query = ''): Promise<{ response: Response; names: string[] }> {
  const response = await user.request(`/plants${query}`);
  assert.equal(response.status, 200, `GET /plants${query}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const plants = (await response.json()) as { name: string }[];
  return { response, names: plants.map((plant) => plant.name) };
}

async function assertBadRequest(user: TestUser, query: string): Promise<void> {
  const response = await user.request(`/plants${query}`);
  assert.equal(response.status, 400, `GET /plants${query}`);
  const body = (await response.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message']);
  assert.equal(body.error, 400);
}

/** Parses `Link: </plants?limit=N&after=ID>; rel="next"`; undefined when absent. */
function nextLink(response: Response): string | undefined {
  const link = response.headers.get('link');
  if (link === null) return undefined;
  const match = /^<(\/plants\?limit=[0-9]+&after=-?[0-9]+)>; rel="next"$/.exec(link);
  assert.ok(match, `Link header shape: ${link}`);
  return match[1];
}

const IDS = [5n, -3n, 9007199254740993n, 0n, 9223372036854775807n, -9223372036854775808n, 12n, 100n, 9007199254740992n];
const SORTED = [...IDS].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

for (const kind of storeKinds()) {
  describe(`GET /plants on ${kind}`, () => {
    test('200, a JSON array of Plant ordered by id ascending (numeric int64 order, negatives first)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await Promise.all(IDS.map((id) => create(user, id)));
      const { response, names } = await get(user);
      assert.deepEqual(names, SORTED.map((id) => `Plant ${id}`));
      assert.equal(response.headers.get('link'), null);
    });

    test('Plant in a list has name and tag only, tag omitted when none', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await user.request('/plants', { method: 'POST', json: '{"id":2,"name":"Fern","tag":"indoor"}' });
      await create(user, 1, 'Moss');
      const response = await user.request('/plants');
      assert.equal(await response.text(), '[{"name":"Moss"},{"name":"Fern","tag":"indoor"}]');
    });

    test('a user with no plants gets []', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const response = await user.request('/plants');
      assert.equal(response.status, 200);
      assert.equal(await response.text(), '[]');
      assert.equal(response.headers.get('link'), null);
    });

    test('limit absent → all of the caller’s plants', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await Promise.all(Array.from({ length: 30 }, (_, i) => create(user, i)));
      assert.equal((await get(user)).names.length, 30);
    });

    test('limit=0 → [] and no Link header', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, 1);
      const { response, names } = await get(user, '?limit=0');
      assert.deepEqual(names, []);
      assert.equal(response.headers.get('link'), null);
    });

    test('limit cuts the list short: Link </plants?limit=N&after=<last id returned>>; rel="next"', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await Promise.all(IDS.map((id) => create(user, id)));
      const { response, names } = await get(user, '?limit=3');
      assert.deepEqual(names, SORTED.slice(0, 3).map((id) => `Plant ${id}`));
      assert.equal(response.headers.get('link'), `</plants?limit=3&after=${SORTED[2]}>; rel="next"`);
    });

    test('Link cursors keep ids above 2^53 exact', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await Promise.all([9007199254740992n, 9007199254740993n, 9007199254740994n].map((id) => create(user, id)));
      const first = await get(user, '?limit=1&after=9007199254740992');
      assert.deepEqual(first.names, ['Plant 9007199254740993']);
      assert.equal(first.response.headers.get('link'), '</plants?limit=1&after=9007199254740993>; rel="next"');
      const second = await get(user, '?limit=1&after=9007199254740993');
      assert.deepEqual(second.names, ['Plant 9007199254740994']);
      assert.equal(second.response.headers.get('link'), null);
    });

    test('no Link header when nothing follows (limit equal to or above the count)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await Promise.all([1, 2, 3].map((id) => create(user, id)));
      for (const query of ['?limit=3', '?limit=4', '?limit=2147483647', '?limit=2&after=1']) {
        const { response, names } = await get(user, query);
        assert.ok(names.length > 0);
        assert.equal(response.headers.get('link'), null, query);
      }
    });

    test('a large limit that cuts the list short also gets a Link header', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      await Promise.all(Array.from({ length: 1203 }, (_, i) => server.running.store.createPlant(user.name, { id: BigInt(i), name: `Plant ${i}`, tag: null })));
      const { response, names } = await get(user, '?limit=1202');
      assert.equal(names.length, 1202);
      assert.equal(response.headers.get('link'), '</plants?limit=1202&after=1201>; rel="next"');
      const rest = await get(user, '?limit=1202&after=1201');
      assert.deepEqual(rest.names, ['Plant 1202']);
      assert.equal(rest.response.headers.get('link'), null);
    });

    test('HEAD answers the headers of the GET (Link included) with no body, also for a streamed list', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      await Promise.all(Array.from({ length: 1203 }, (_, i) => server.running.store.createPlant(user.name, { id: BigInt(i), name: `Plant ${i}`, tag: null })));
      for (const [query, link] of [
        ['?limit=1202', '</plants?limit=1202&after=1201>; rel="next"'],
        ['', null],
        ['?limit=5', '</plants?limit=5&after=4>; rel="next"'],
      ] as const) {
        const head = await user.request(`/plants${query}`, { method: 'HEAD' });
        assert.equal(head.status, 200, query);
        assert.equal(head.headers.get('content-type'), 'application/json', query);
        assert.equal(head.headers.get('link'), link, query);
        assert.equal(await head.text(), '', query);
      }
    });

    test('limit: leading zeros allowed (007 is 7)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await Promise.all(Array.from({ length: 10 }, (_, i) => create(user, i)));
      const { response, names } = await get(user, '?limit=007');
      assert.equal(names.length, 7);
      assert.equal(response.headers.get('link'), '</plants?limit=7&after=6>; rel="next"');
      assert.deepEqual((await get(user, '?limit=000')).names, []);
    });

    test('limit: negative, fraction, text, empty, repeated, over int32 → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const query of ['?limit=-1', '?limit=-0', '?limit=1.5', '?limit=1.0', '?limit=ten', '?limit=', '?limit', '?limit=1&limit=1', '?limit=2&limit=3', '?limit=2147483648', '?limit=99999999999999999999']) {
        await assertBadRequest(user, query);
      }
    });

    test('limit: +7, " 7", "7 ", 1e2, 0x10, non-ASCII digits → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const value of ['%2B7', '+7', '%207', '7%20', '1e2', '0x10', '%D9%A7', '%EF%BC%97', '7%00']) {
        await assertBadRequest(user, `?limit=${value}`);
      }
    });

    test('after: only plants with id greater than it', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await Promise.all(IDS.map((id) => create(user, id)));
      assert.deepEqual((await get(user, '?after=0')).names, SORTED.filter((id) => id > 0n).map((id) => `Plant ${id}`));
      assert.deepEqual((await get(user, '?after=-4')).names, SORTED.filter((id) => id > -4n).map((id) => `Plant ${id}`));
      assert.deepEqual((await get(user, '?after=-9223372036854775808')).names.length, IDS.length - 1);
      assert.deepEqual((await get(user, '?after=9223372036854775807')).names, []);
      assert.deepEqual((await get(user, '?after=-0005')).names.length, SORTED.filter((id) => id > -5n).length);
    });

    test('after: fraction, text, empty, repeated, out of int64 range, bad spellings → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const values = ['1.5', 'abc', '', '9223372036854775808', '-9223372036854775809', '%2B7', '%207', '7%20', '1e2', '0x10', '%D9%A7', '--1', '-'];
      for (const value of values) await assertBadRequest(user, `?after=${value}`);
      await assertBadRequest(user, '?after=1&after=2');
      await assertBadRequest(user, '?limit=5&after=x');
    });

    test('walking next links visits every plant that exists throughout exactly once, while others are created and deleted', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const stable = Array.from({ length: 40 }, (_, i) => BigInt(i * 10));
      const doomed = Array.from({ length: 20 }, (_, i) => BigInt(i * 20 + 5));
      await Promise.all([...stable.map((id) => create(user, id, `stable ${id}`)), ...doomed.map((id) => create(user, id, `doomed ${id}`))]);
      // Between pages, plants come and go both ahead of and behind the cursor.
      const { seen } = await walkLinks(user, '/plants?limit=7', (step) => [
        create(user, BigInt(step * 10 + 3), `new ${step * 10 + 3}`),
        create(user, BigInt(400 - step * 10 + 1), `new ${400 - step * 10 + 1}`),
        user.request(`/plants/${doomed[step] ?? 9999}`, { method: 'DELETE' }),
      ]);
      const stableSeen = seen.filter((name) => name.startsWith('stable '));
      assert.deepEqual(stableSeen, stable.map((id) => `stable ${id}`), 'every stable plant once, in order');
      assert.equal(new Set(seen).size, seen.length, 'no plant twice');
    });

    test('walking next links of streamed pages (limit over 1000) visits every plant that exists throughout exactly once, under churn', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const { store } = server.running;
      const stable = Array.from({ length: 3000 }, (_, i) => BigInt(i * 10));
      const doomed = Array.from({ length: 20 }, (_, i) => BigInt(i * 1500 + 5));
      await Promise.all([
        ...stable.map((id) => store.createPlant(user.name, { id, name: `stable ${id}`, tag: null })),
        ...doomed.map((id) => store.createPlant(user.name, { id, name: `doomed ${id}`, tag: null })),
      ]);
      // Between pages, plants come and go both ahead of and behind the cursor, and near its edge.
      const { seen, pages } = await walkLinks(user, '/plants?limit=1001', (step, seenSoFar) => {
        const edge = seenSoFar * 10;
        return [
          create(user, BigInt(step * 10 + 3), `new ${step * 10 + 3}`),
          create(user, BigInt(edge - 7), `new ${edge - 7}`),
          create(user, BigInt(edge + 1), `new ${edge + 1}`),
          create(user, BigInt(29_990 - step * 10 + 1), `new ${29_990 - step * 10 + 1}`),
          user.request(`/plants/${doomed[step] ?? 99_999}`, { method: 'DELETE' }),
        ];
      });
      assert.ok(pages >= 3, `${pages} pages`);
      const stableSeen = seen.filter((name) => name.startsWith('stable '));
      assert.deepEqual(stableSeen, stable.map((id) => `stable ${id}`), 'every stable plant once, in order');
      assert.equal(new Set(seen).size, seen.length, 'no plant twice');
    });

    test('GET carrying Content-Type: application/json and no body is served normally', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, 1, 'Fern');
      const response = await user.request('/plants', { headers: { 'content-type': 'application/json' } });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), [{ name: 'Fern' }]);
    });

    test('a long list streams to a slow client completely, in order, leaving no listeners behind', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const count = 15_000;
      await Promise.all(Array.from({ length: count }, (_, i) => server.running.store.createPlant(user.name, { id: BigInt(i), name: `p${i}`, tag: null })));
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
      process.on('warning', onWarning);
      t.after(() => process.off('warning', onWarning));
      const response = await user.request('/plants');
      assert.equal(response.status, 200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const parts: Buffer[] = [];
      for (let step = 0; ; step++) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(Buffer.from(value));
        // Read slowly so that the server has to wait for the socket to drain.
        if (step % 8 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const names = (JSON.parse(Buffer.concat(parts).toString('utf8')) as { name: string }[]).map((plant) => plant.name);
      assert.equal(names.length, count);
      assert.ok(names.every((name, i) => name === `p${i}`));
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings.filter((warning) => warning.includes('MaxListeners')), []);
    });

    test('a client that goes away in the middle of a long list does not stop the server', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      await Promise.all(Array.from({ length: 5_000 }, (_, i) => server.running.store.createPlant(user.name, { id: BigInt(i), name: `p${i}`, tag: null })));
      for (let i = 0; i < 6; i++) {
        const abort = new AbortController();
        const response = await user.request('/plants', { signal: abort.signal });
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        await reader.read();
        abort.abort();
        await reader.read().catch(() => undefined);
      }
      const after = await user.request('/plants?limit=2');
      assert.equal(after.status, 200);
      assert.deepEqual(await after.json(), [{ name: 'p0' }, { name: 'p1' }]);
      assert.equal((await user.request('/plants')).status, 200);
    });

    test('an owner may stream one list after another: a complete stream no longer counts against STREAMS_PER_OWNER', async (t) => {
      const user = await (await startTestServer(t, kind, { streamsPerOwner: '1' })).user();
      await create(user, 1, 'Moss');
      const statuses: number[] = [];
      for (let i = 0; i < 50; i++) {
        const response = await user.request('/plants');
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      assert.deepEqual(statuses, statuses.map(() => 200));
    });
  });
}
