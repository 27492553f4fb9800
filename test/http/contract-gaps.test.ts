/**
 * Rows of API.md that had no focused test: GET /plants `tag`, `fields` and other parameters
 * (and none taken by a create or a delete), the Link header keeping `tag` and `fields`, and the
 * GET/HEAD /plants/{id} table.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { issueToken } from '../../src/auth/api-tokens.js';
import { assertError } from '../helpers/assertions.js';
import { startTestServer, storeKinds, type TestUser } from '../helpers/server.js';

async function create(user: TestUser, body: string): Promise<void> {
  const response = await user.request('/plants', { method: 'POST', json: body });
  assert.equal(response.status, 200, body);
}

/** GET with a 200 asserted; the body as text, exactly as sent. */
async function getText(user: TestUser, path: string): Promise<{ response: Response; text: string }> {
  const response = await user.request(path);
  assert.equal(response.status, 200, path);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/, path);
  return { response, text: await response.text() };
}

/** Plants with and without tags, tags differing only in case, under one user. */
async function seed(user: TestUser): Promise<void> {
  for (const body of [
    '{"id":1,"name":"Fern","tag":"green"}',
    '{"id":2,"name":"Moss"}',
    '{"id":3,"name":"Ivy","tag":"Green"}',
    '{"id":4,"name":"Cactus","tag":"green"}',
    '{"id":5,"name":"Palm","tag":"green "}',
    '{"id":-6,"name":"Aloe","tag":"green"}',
  ]) {
    await create(user, body);
  }
}

for (const kind of storeKinds()) {
  describe(`GET /plants?tag on ${kind}`, () => {
    test('tag: only plants whose tag equals it exactly (case and all); untagged plants never match', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await seed(user);
      assert.equal((await getText(user, '/plants?tag=green')).text, '[{"name":"Aloe","tag":"green"},{"name":"Fern","tag":"green"},{"name":"Cactus","tag":"green"}]');
      assert.equal((await getText(user, '/plants?tag=Green')).text, '[{"name":"Ivy","tag":"Green"}]');
      assert.equal((await getText(user, '/plants?tag=green%20')).text, '[{"name":"Palm","tag":"green "}]');
      assert.equal((await getText(user, '/plants?tag=GREEN')).text, '[]');
      assert.equal((await getText(user, '/plants?tag=gree')).text, '[]');
    });

    test('tag: a UTF-8 tag matches when percent-encoded', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, JSON.stringify({ id: 1, name: 'Rose', tag: 'rosé 🌹' }));
      await create(user, JSON.stringify({ id: 2, name: 'Rose2', tag: 'rose' }));
      const { text } = await getText(user, `/plants?tag=${encodeURIComponent('rosé 🌹')}`);
      assert.deepEqual(JSON.parse(text), [{ name: 'Rose', tag: 'rosé 🌹' }]);
    });

    test('tag: escapes that are not UTF-8 → 400 Error, never a match for U+FFFD', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, JSON.stringify({ id: 1, name: 'Odd', tag: '\uFFFD' }));
      for (const tag of ['%FF', '%80', '%8F', 'a%C3', '%C3%28', '%ED%A0%80']) await assertError(await user.request(`/plants?tag=${tag}`), 400, `tag=${tag}`);
      assert.equal((await getText(user, '/plants?tag=%EF%BF%BD')).text, '[{"name":"Odd","tag":"\uFFFD"}]', 'U+FFFD written in UTF-8');
    });

    test('tag: another owner’s plants with that tag never appear', async (t) => {
      const server = await startTestServer(t, kind);
      const [alice, bob] = [await server.user(), await server.user()];
      await create(alice, '{"id":1,"name":"Alice fern","tag":"green"}');
      await create(bob, '{"id":2,"name":"Bob fern","tag":"green"}');
      assert.equal((await getText(bob, '/plants?tag=green')).text, '[{"name":"Bob fern","tag":"green"}]');
    });

    test('tag: empty or repeated → 400 Error', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await seed(user);
      for (const query of ['?tag=', '?tag', '?tag=green&tag=green', '?tag=green&tag=Green', '?limit=5&tag=']) {
        await assertError(await user.request(`/plants${query}`), 400, query);
      }
    });

    test('tag combines with limit and after', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await seed(user);
      // After 1 come Moss (no tag) and Ivy ("Green"): the page must pass over both.
      const { text } = await getText(user, '/plants?tag=green&after=1&limit=1');
      assert.equal(text, '[{"name":"Cactus","tag":"green"}]');
    });
  });

  describe(`GET /plants?fields on ${kind}`, () => {
    test('fields absent → name,tag (the seed’s Plant)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":1,"name":"Fern","tag":"green"}');
      await create(user, '{"id":2,"name":"Moss"}');
      assert.equal((await getText(user, '/plants')).text, '[{"name":"Fern","tag":"green"},{"name":"Moss"}]');
    });

    test('fields: each listed plant carries exactly the members listed; tag still omitted when none', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":1,"name":"Fern","tag":"green"}');
      await create(user, '{"id":2,"name":"Moss"}');
      const cases: [string, unknown][] = [
        ['id', [{ id: 1 }, { id: 2 }]],
        ['name', [{ name: 'Fern' }, { name: 'Moss' }]],
        ['tag', [{ tag: 'green' }, {}]],
        ['id,name', [{ id: 1, name: 'Fern' }, { id: 2, name: 'Moss' }]],
        ['tag,id', [{ id: 1, tag: 'green' }, { id: 2 }]],
        ['name,tag', [{ name: 'Fern', tag: 'green' }, { name: 'Moss' }]],
        ['id,name,tag', [{ id: 1, name: 'Fern', tag: 'green' }, { id: 2, name: 'Moss' }]],
        ['tag,name,id', [{ id: 1, name: 'Fern', tag: 'green' }, { id: 2, name: 'Moss' }]],
      ];
      for (const [fields, expected] of cases) {
        const { text } = await getText(user, `/plants?fields=${fields}`);
        assert.deepEqual(JSON.parse(text), expected, `fields=${fields}`);
      }
      // A comma written as %2C is the same list.
      assert.deepEqual(JSON.parse((await getText(user, '/plants?fields=id%2Cname')).text), [{ id: 1, name: 'Fern' }, { id: 2, name: 'Moss' }]);
    });

    test('fields=id writes id as an exact JSON integer (int64 extremes, above 2^53)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const id of ['-9223372036854775808', '9007199254740993', '9223372036854775807', '-0']) await create(user, `{"id":${id},"name":"P"}`);
      const { text } = await getText(user, '/plants?fields=id');
      assert.equal(text.replace(/\s/g, ''), '[{"id":-9223372036854775808},{"id":0},{"id":9007199254740993},{"id":9223372036854775807}]');
    });

    test('fields: an unknown or repeated field, or an empty value → 400 Error', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":1,"name":"Fern"}');
      for (const fields of ['', 'colour', 'id,colour', 'id,id', 'name,tag,name', 'id,', ',id', 'ID', 'Name', 'id,,name', 'id%20', '%20id', 'id;name']) {
        await assertError(await user.request(`/plants?fields=${fields}`), 400, `fields=${fields}`);
      }
      for (const query of ['?fields', '?fields=id&fields=id', '?fields=id&fields=name']) {
        await assertError(await user.request(`/plants${query}`), 400, query);
      }
    });
  });

  describe(`GET /plants other parameters on ${kind}`, () => {
    test('any other parameter → 400 Error naming it, never silently ignored', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":1,"name":"Fern"}');
      for (const [query, name] of [
        ['?colour=green', 'colour'],
        ['?limit=5&offset=2', 'offset'],
        ['?Limit=5', 'Limit'],
        ['?page=2', 'page'],
        ['?sort=name&limit=1', 'sort'],
        ['?q', 'q'],
      ] as const) {
        const body = await assertError(await user.request(`/plants${query}`), 400, query);
        assert.ok((body.message as string).includes(name), `${query}: message names ${name}: ${String(body.message)}`);
      }
    });

    test('GET /plants/{id} takes only fields: any other parameter → 400 Error naming it', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":1,"name":"Fern"}');
      for (const [query, name] of [
        ['?limit=1', 'limit'],
        ['?colour=green', 'colour'],
        ['?fields=id&tag=x', 'tag'],
      ] as const) {
        const body = await assertError(await user.request(`/plants/1${query}`), 400, query);
        assert.ok((body.message as string).includes(name), `${query}: message names ${name}: ${String(body.message)}`);
      }
    });
  });

  describe(`POST /plants and DELETE /plants/{id} take no parameters on ${kind}`, () => {
    test('a parameter on a create or a delete → 400 Error naming it, and nothing is changed', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":1,"name":"Fern"}');
      const created = await user.request('/plants?dryRun=true', { method: 'POST', json: '{"id":2,"name":"Moss"}' });
      assert.ok(((await assertError(created, 400, 'POST')).message as string).includes('dryRun'));
      // The parameter is judged before the media type: 400, not 415.
      const textBody = await user.request('/plants?dryRun=true', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"id":2,"name":"Moss"}' });
      assert.ok(((await assertError(textBody, 400, 'POST text/plain')).message as string).includes('dryRun'));
      const deleted = await user.request('/plants/1?force=1', { method: 'DELETE' });
      assert.ok(((await assertError(deleted, 400, 'DELETE')).message as string).includes('force'));
      assert.equal((await getText(user, '/plants')).text, '[{"name":"Fern"}]');
    });
  });

  describe(`Link keeps tag and fields on ${kind}`, () => {
    test('Link: </plants?limit=<limit>&after=<last id>&tag=…&fields=…>; rel="next", and walking it gives the rest', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await seed(user);
      const first = await getText(user, '/plants?limit=2&tag=green&fields=id,name');
      assert.equal(first.text, '[{"id":-6,"name":"Aloe"},{"id":1,"name":"Fern"}]');
      const link = first.response.headers.get('link');
      assert.equal(link, '</plants?limit=2&after=1&tag=green&fields=id,name>; rel="next"');
      const target = /^<([^>]+)>/.exec(link ?? '')?.[1] as string;
      const second = await getText(user, target);
      assert.equal(second.text, '[{"id":4,"name":"Cactus"}]');
      assert.equal(second.response.headers.get('link'), null, 'nothing follows');
    });

    test('a tag that needs escaping is escaped in the Link and the link leads to the same filter', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (let id = 1; id <= 3; id++) await create(user, JSON.stringify({ id, name: `P${id}`, tag: 'a&b =c,é' }));
      await create(user, JSON.stringify({ id: 4, name: 'Other', tag: 'a' }));
      const first = await getText(user, `/plants?limit=2&tag=${encodeURIComponent('a&b =c,é')}`);
      assert.deepEqual(JSON.parse(first.text), [{ name: 'P1', tag: 'a&b =c,é' }, { name: 'P2', tag: 'a&b =c,é' }]);
      const target = /^<([^>]+)>; rel="next"$/.exec(first.response.headers.get('link') ?? '')?.[1];
      assert.ok(target !== undefined, `Link: ${first.response.headers.get('link')}`);
      assert.ok(!/[ <>]/.test(target), `escaped: ${target}`);
      assert.equal(new URL(target, 'http://x').searchParams.get('tag'), 'a&b =c,é');
      const second = await getText(user, target);
      assert.deepEqual(JSON.parse(second.text), [{ name: 'P3', tag: 'a&b =c,é' }]);
    });

    test('no Link when no more plants with that tag follow, even though untagged or other-tag plants do', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      await seed(user);
      for (const query of ['?tag=Green&limit=1', '?tag=green&limit=3', '?tag=green%20&limit=1', '?tag=green&after=1&limit=1']) {
        const { response, text } = await getText(user, `/plants${query}`);
        assert.notEqual(text, '[]', query);
        if (query.endsWith('after=1&limit=1')) assert.equal(text, '[{"name":"Cactus","tag":"green"}]');
        assert.equal(response.headers.get('link'), null, query);
      }
      // The streamed path (limit over 1000) decides the same way.
      await Promise.all(Array.from({ length: 1100 }, (_, i) => server.running.store.createPlant(user.name, { id: BigInt(100 + i), name: `x${i}`, tag: i === 0 ? 'rare' : null })));
      const streamed = await getText(user, '/plants?tag=rare&limit=1001');
      assert.equal(streamed.text, '[{"name":"x0","tag":"rare"}]');
      assert.equal(streamed.response.headers.get('link'), null);
      const cut = await getText(user, '/plants?limit=1001&fields=id');
      assert.equal((JSON.parse(cut.text) as unknown[]).length, 1001);
      assert.equal(cut.response.headers.get('link'), '</plants?limit=1001&after=1094&fields=id>; rel="next"');
    });

    test('without tag or fields the Link carries neither', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await seed(user);
      assert.equal((await getText(user, '/plants?limit=1')).response.headers.get('link'), '</plants?limit=1&after=-6>; rel="next"');
    });
  });

  describe(`GET /plants/{id} on ${kind}`, () => {
    test('the caller owns plant id: 200, body Plant (name, tag as stored; tag omitted when none)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":7,"name":"Fern","tag":"indoor"}');
      await create(user, '{"id":8,"name":"Moss"}');
      assert.equal((await getText(user, '/plants/7')).text, '{"name":"Fern","tag":"indoor"}');
      assert.equal((await getText(user, '/plants/8')).text, '{"name":"Moss"}');
    });

    test('the Location a create answers with leads to the plant', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const id of ['9007199254740993', '-9223372036854775808', '9223372036854775807']) {
        const created = await user.request('/plants', { method: 'POST', json: `{"id":${id},"name":"P${id}"}` });
        assert.equal(created.status, 200);
        const location = created.headers.get('location') as string;
        assert.equal((await getText(user, location)).text, `{"name":"P${id}"}`, location);
      }
      await assertError(await user.request('/plants/9007199254740992'), 404, 'its neighbour below 2^53 is not it');
    });

    test('the id may be percent-encoded, as any path segment; an escape that is not one → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":1,"name":"One"}');
      await create(user, '{"id":-1,"name":"Minus one"}');
      assert.equal((await getText(user, '/plants/%31')).text, '{"name":"One"}');
      assert.equal((await getText(user, '/plants/%2D1')).text, '{"name":"Minus one"}');
      await assertError(await user.request('/plants/%ZZ'), 400);
    });

    test('fields as on GET /plants, id an exact JSON integer', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":9007199254740993,"name":"Fern","tag":"indoor"}');
      assert.equal((await getText(user, '/plants/9007199254740993?fields=id')).text.replace(/\s/g, ''), '{"id":9007199254740993}');
      assert.deepEqual(JSON.parse((await getText(user, '/plants/9007199254740993?fields=tag,name')).text), { name: 'Fern', tag: 'indoor' });
      assert.deepEqual(JSON.parse((await getText(user, '/plants/9007199254740993?fields=name')).text), { name: 'Fern' });
      for (const fields of ['', 'colour', 'id,id']) await assertError(await user.request(`/plants/9007199254740993?fields=${fields}`), 400, `fields=${fields}`);
    });

    test('leading zeros and -0 name the same plant (007 is 7, -0 is 0)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":7,"name":"Seven"}');
      await create(user, '{"id":0,"name":"Zero"}');
      assert.equal((await getText(user, '/plants/007')).text, '{"name":"Seven"}');
      assert.equal((await getText(user, '/plants/-0')).text, '{"name":"Zero"}');
    });

    test('no such plant for this caller: never existed, deleted, or another owner’s → 404 Error, alike', async (t) => {
      const server = await startTestServer(t, kind);
      const [alice, bob] = [await server.user(), await server.user()];
      await create(alice, '{"id":7,"name":"Alice fern"}');
      await create(bob, '{"id":8,"name":"Bob fern"}');
      assert.equal((await bob.request('/plants/8', { method: 'DELETE' })).status, 204);
      const other = await bob.request('/plants/7');
      const deleted = await bob.request('/plants/8');
      const never = await bob.request('/plants/9');
      const bodies = [];
      for (const response of [other, deleted, never]) bodies.push(await assertError(response, 404));
      assert.deepEqual(bodies[0], bodies[2], 'another owner’s plant answers exactly like an absent one');
      assert.equal((await getText(alice, '/plants/7')).text, '{"name":"Alice fern"}');
    });

    test('id not a decimal int64 → 400 Error', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":7,"name":"Fern"}');
      for (const id of ['abc', '1.5', '7.0', '9223372036854775808', '-9223372036854775809', '1e2', '0x10', '%2B7', '+7', '%207', '7%20', '%D9%A7', '-', '--1', '%zz']) {
        await assertError(await user.request(`/plants/${id}`), 400, id);
      }
    });

    test('HEAD answers as GET without a body (200 and 404 alike)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":7,"name":"Fern","tag":"indoor"}');
      for (const [path, status] of [
        ['/plants/7', 200],
        ['/plants/7?fields=id', 200],
        ['/plants/8', 404],
        ['/plants/x', 400],
      ] as const) {
        const get = await user.request(path);
        const getBody = await get.text();
        const head = await user.request(path, { method: 'HEAD' });
        assert.equal(head.status, status, `HEAD ${path}`);
        assert.equal(get.status, status, `GET ${path}`);
        assert.equal(head.headers.get('content-type'), get.headers.get('content-type'), path);
        const length = head.headers.get('content-length');
        if (length !== null) assert.equal(Number(length), Buffer.byteLength(getBody), `${path}: Content-Length of the GET`);
        assert.equal(await head.text(), '', path);
      }
    });

    test('scope plants:read: a read-only token may GET and HEAD; no token → 401', async (t) => {
      const server = await startTestServer(t, kind);
      const owner = await server.user();
      await create(owner, '{"id":7,"name":"Fern"}');
      const reader = await server.user({ name: owner.name, readOnly: true });
      assert.equal((await getText(reader, '/plants/7')).text, '{"name":"Fern"}');
      assert.equal((await reader.request('/plants/7', { method: 'HEAD' })).status, 200);
      const anonymous = await fetch(`${server.url}/plants/7`);
      await assertError(anonymous, 401);
      assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="plantstore"');
    });

    test('GET /plants/{id} carrying Content-Type: application/json and no body is served normally', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      await create(user, '{"id":7,"name":"Fern"}');
      const response = await user.request('/plants/7', { headers: { 'content-type': 'application/json' } });
      assert.equal(response.status, 200);
      assert.equal(await response.text(), '{"name":"Fern"}');
    });
  });
}

for (const kind of storeKinds()) {
  describe(`streamed pages (limit over 1000) keep tag, after and fields on ${kind}`, () => {
    test('limit=1001&after&tag&fields: only matching plants after the cursor, the members listed, and a Link keeping them', async (t) => {
      const server = await startTestServer(t, kind);
      const user = await server.user();
      const other = await server.user();
      await Promise.all(
        Array.from({ length: 2200 }, (_, i) => server.running.store.createPlant(user.name, { id: BigInt(i), name: `p${i}`, tag: i % 2 === 0 ? 'even' : 'odd' })),
      );
      await server.running.store.createPlant(other.name, { id: 2202n, name: 'not yours', tag: 'even' });
      const evens = Array.from({ length: 1100 }, (_, i) => i * 2);
      const first = await getText(user, '/plants?limit=1001&after=1&tag=even&fields=id');
      const firstIds = (JSON.parse(first.text) as { id: number }[]).map((plant) => plant.id);
      const expected = evens.filter((id) => id > 1);
      assert.deepEqual(firstIds, expected.slice(0, 1001));
      assert.equal(first.response.headers.get('link'), `</plants?limit=1001&after=${expected[1000]}&tag=even&fields=id>; rel="next"`);
      const target = /^<([^>]+)>/.exec(first.response.headers.get('link') ?? '')?.[1] as string;
      const second = await getText(user, target);
      assert.deepEqual((JSON.parse(second.text) as { id: number }[]).map((plant) => plant.id), expected.slice(1001));
      assert.equal(second.response.headers.get('link'), null);
    });
  });

  describe(`auth on HEAD and on GET /plants/{id} on ${kind}`, () => {
    test('HEAD /plants and HEAD /plants/{id} without a token → 401 with the challenge, no body', async (t) => {
      const server = await startTestServer(t, kind);
      const owner = await server.user();
      await create(owner, '{"id":7,"name":"Fern"}');
      for (const path of ['/plants', '/plants/7']) {
        const response = await fetch(server.url + path, { method: 'HEAD' });
        assert.equal(response.status, 401, path);
        assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="plantstore"', path);
        assert.equal(await response.text(), '', path);
        const unknown = await fetch(server.url + path, { method: 'HEAD', headers: { authorization: `Bearer pst_${'A'.repeat(43)}` } });
        assert.equal(unknown.status, 401, path);
        assert.equal(unknown.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="invalid_token"', path);
      }
    });

    test('GET /plants/{id}: unknown or revoked token → 401 invalid_token, and never the plant', async (t) => {
      const server = await startTestServer(t, kind);
      const owner = await server.user();
      await create(owner, '{"id":7,"name":"Fern"}');
      const revoked = await issueToken(server.running.store, { user: owner.name });
      assert.ok(revoked !== undefined);
      assert.equal(await server.running.store.revokeToken(revoked.record.id, new Date()), true);
      for (const token of [`pst_${'A'.repeat(43)}`, revoked.token]) {
        const response = await fetch(`${server.url}/plants/7`, { headers: { authorization: `Bearer ${token}` } });
        await assertError(response, 401);
        assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="invalid_token"');
      }
    });
  });

  describe(`order of checks: unknown path before wrong method on ${kind}`, () => {
    test('a method no route takes on an unknown path → 404, not 405', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const [method, path] of [
        ['PUT', '/nowhere'],
        ['PATCH', '/plants/7/leaves'],
        ['DELETE', '/plant'],
        ['PUT', '/plants/7/'],
      ]) {
        const response = await user.request(path as string, { method });
        await assertError(response, 404, `${method} ${path}`);
        assert.equal(response.headers.get('allow'), null, `${method} ${path}`);
      }
    });
  });
}

for (const kind of storeKinds()) {
  describe(`integer spellings on ${kind}`, () => {
    test('id in JSON: spellings JSON does not allow (007, +7, .5, 7., 0x10, Infinity, -) → 400, nothing stored', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const id of ['007', '-07', '+7', '.5', '7.', '0x10', 'Infinity', '-Infinity', 'NaN', '-', '--1', '1_000', '"7"']) {
        await assertError(await user.request('/plants', { method: 'POST', json: `{"id":${id},"name":"Fern"}` }), 400, `id ${id}`);
      }
      assert.equal((await getText(user, '/plants')).text, '[]');
    });

    test('leading zeros in limit, after and the path id, however many, are the plain number', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (let id = 1; id <= 9; id++) await create(user, `{"id":${id},"name":"P${id}"}`);
      const zeros = '0'.repeat(30);
      const { response, text } = await getText(user, `/plants?limit=${zeros}2&after=${zeros}3`);
      assert.equal(text, '[{"name":"P4"},{"name":"P5"}]');
      assert.equal(response.headers.get('link'), '</plants?limit=2&after=5>; rel="next"');
      assert.equal((await getText(user, `/plants?after=-${zeros}1&limit=1`)).text, '[{"name":"P1"}]');
      assert.equal((await getText(user, `/plants/${zeros}7`)).text, '{"name":"P7"}');
      assert.equal((await user.request(`/plants/${zeros}7`, { method: 'DELETE' })).status, 204);
      await assertError(await user.request('/plants/7'), 404);
    });
  });
}
