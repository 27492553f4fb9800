/** POST /plants: the rows of API.md's "POST /plants" table and the NewPlant field rules. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import { startTestServer, storeKinds, type TestUser } from '../helpers/server.js';

async function post(user: TestUser, body: string): Promise<Response> {
  return user.request('/plants', { method: 'POST', json: body });
}

const assertBadRequest = (response: Response) => assertError(response, 400);

/** The plants the user has, as GET /plants shows them. */
async function listed(user: TestUser): Promise<unknown> {
  const response = await user.request('/plants');
  assert.equal(response.status, 200);
  return response.json();
}

for (const kind of storeKinds()) {
  describe(`POST /plants on ${kind}`, () => {
    test('created: 200 with the Plant as stored and Location: /plants/<id>', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const response = await post(user, '{"id":7,"name":"Fern","tag":"indoor"}');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(response.headers.get('location'), '/plants/7');
      assert.deepEqual(await response.json(), { name: 'Fern', tag: 'indoor' });
      assert.deepEqual(await listed(user), [{ name: 'Fern', tag: 'indoor' }]);
    });

    test('created without a tag: the Plant has no tag field', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const response = await post(user, '{"id":1,"name":"Moss"}');
      assert.equal(response.status, 200);
      assert.equal(await response.text(), '{"name":"Moss"}');
    });

    test('same owner, same id, same name and tag: 200 with the stored Plant', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const first = await post(user, '{"id":3,"name":"Ivy","tag":"vine"}');
      assert.equal(first.status, 200);
      const retry = await post(user, '{"tag":"vine","name":"Ivy","id":3}');
      assert.equal(retry.status, 200);
      assert.equal(retry.headers.get('location'), '/plants/3');
      assert.deepEqual(await retry.json(), { name: 'Ivy', tag: 'vine' });
      assert.deepEqual(await listed(user), [{ name: 'Ivy', tag: 'vine' }]);
    });

    test('same owner, same id, different name or tag: 409 and the stored plant is unchanged', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      assert.equal((await post(user, '{"id":3,"name":"Ivy","tag":"vine"}')).status, 200);
      for (const body of ['{"id":3,"name":"Ivy2","tag":"vine"}', '{"id":3,"name":"Ivy","tag":"other"}', '{"id":3,"name":"Ivy"}']) {
        await assertError(await post(user, body), 409);
      }
      assert.deepEqual(await listed(user), [{ name: 'Ivy', tag: 'vine' }]);
    });

    test('same id stored without a tag, sent again with one: 409 and the plant keeps no tag', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      assert.equal((await post(user, '{"id":4,"name":"Moss"}')).status, 200);
      await assertError(await post(user, '{"id":4,"name":"Moss","tag":"ground"}'), 409);
      assert.deepEqual(await listed(user), [{ name: 'Moss' }]);
    });

    test('concurrent creates of one id with different bodies: exactly one 200, all others 409, the stored plant is the 200', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const names = Array.from({ length: 20 }, (_, i) => `Racer ${i}`);
      const responses = await Promise.all(names.map((name) => post(user, JSON.stringify({ id: 42, name }))));
      const statuses = responses.map((response) => response.status);
      assert.equal(statuses.filter((status) => status === 200).length, 1, `statuses: ${statuses.join(',')}`);
      assert.equal(statuses.filter((status) => status === 409).length, names.length - 1);
      const winner = responses.find((response) => response.status === 200) as Response;
      const won = (await winner.json()) as { name: string };
      assert.deepEqual(await listed(user), [won]);
    });

    test('identical creates sent at once all get 200 and store one plant', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const responses = await Promise.all(Array.from({ length: 10 }, () => post(user, '{"id":9,"name":"Twin","tag":"x"}')));
      assert.deepEqual(responses.map((response) => response.status), Array(10).fill(200));
      for (const response of responses) assert.deepEqual(await response.json(), { name: 'Twin', tag: 'x' });
      assert.deepEqual(await listed(user), [{ name: 'Twin', tag: 'x' }]);
    });

    test('POST with an id above 2^53 keeps it exact (9007199254740993)', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const response = await post(user, '{"id":9007199254740993,"name":"Exact"}');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('location'), '/plants/9007199254740993');
      assert.equal((await post(user, '{"id":9007199254740992,"name":"Neighbour"}')).status, 200);
      // Same id again with another name must conflict; its neighbour must not be mistaken for it.
      assert.equal((await post(user, '{"id":9007199254740993,"name":"Other"}')).status, 409);
      assert.equal((await user.request('/plants/9007199254740993', { method: 'DELETE' })).status, 204);
      assert.deepEqual(await listed(user), [{ name: 'Neighbour' }]);
    });

    test('id: int64 minimum and maximum are kept exactly', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const max = await post(user, '{"id":9223372036854775807,"name":"Max"}');
      assert.equal(max.status, 200);
      assert.equal(max.headers.get('location'), '/plants/9223372036854775807');
      const min = await post(user, '{"id":-9223372036854775808,"name":"Min"}');
      assert.equal(min.status, 200);
      assert.equal(min.headers.get('location'), '/plants/-9223372036854775808');
      assert.deepEqual(await listed(user), [{ name: 'Min' }, { name: 'Max' }]);
    });

    test('id: -0 means 0', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const response = await post(user, '{"id":-0,"name":"Zero"}');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('location'), '/plants/0');
      assert.equal((await post(user, '{"id":0,"name":"Zero"}')).status, 200);
      assert.equal((await user.request('/plants/0', { method: 'DELETE' })).status, 204);
    });

    test('id: missing, string, fraction, null, out of int64 range → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const bodies = [
        '{"name":"Fern"}',
        '{"id":"7","name":"Fern"}',
        '{"id":1.5,"name":"Fern"}',
        '{"id":null,"name":"Fern"}',
        '{"id":true,"name":"Fern"}',
        '{"id":[7],"name":"Fern"}',
        '{"id":{},"name":"Fern"}',
        '{"id":9223372036854775808,"name":"Fern"}',
        '{"id":-9223372036854775809,"name":"Fern"}',
        '{"id":100000000000000000000000000000,"name":"Fern"}',
      ];
      for (const body of bodies) await assertBadRequest(await post(user, body));
      assert.deepEqual(await listed(user), []);
      const quoted = (await (await post(user, '{"id":"9007199254740993","name":"Fern"}')).json()) as { message: string };
      assert.equal(quoted.message, '"id" must be a JSON number, not a string: write the integer without quotes (every int64 is kept exactly).');
      const nothing = (await (await post(user, '{"id":null,"name":"Fern"}')).json()) as { message: string };
      assert.equal(nothing.message, '"id" must be a JSON integer.');
    });

    test('id: 1.0, 1e3, 1E3 are not integer literals → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const id of ['1.0', '1e3', '1E3', '1e+3', '10e-1', '-1.0']) {
        await assertBadRequest(await post(user, `{"id":${id},"name":"Fern"}`));
      }
      assert.deepEqual(await listed(user), []);
    });

    test('name: 1 to 256 code points; an emoji counts once', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const emoji = '\u{1F33F}'; // two UTF-16 units, one code point
      assert.equal((await post(user, JSON.stringify({ id: 1, name: 'x' }))).status, 200);
      assert.equal((await post(user, JSON.stringify({ id: 2, name: emoji.repeat(256) }))).status, 200);
      assert.equal((await post(user, JSON.stringify({ id: 3, name: 'é'.repeat(256) }))).status, 200);
      await assertBadRequest(await post(user, JSON.stringify({ id: 4, name: emoji.repeat(257) })));
      await assertBadRequest(await post(user, JSON.stringify({ id: 5, name: 'a'.repeat(257) })));
      await assertBadRequest(await post(user, JSON.stringify({ id: 6, name: '' })));
      const plants = (await listed(user)) as { name: string }[];
      assert.deepEqual(plants.map((plant) => [...plant.name].length), [1, 256, 256]);
    });

    test('name: missing, null or not a string → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const body of ['{"id":1}', '{"id":1,"name":null}', '{"id":1,"name":7}', '{"id":1,"name":["Fern"]}', '{"id":1,"name":{}}', '{"id":1,"name":true}']) {
        await assertBadRequest(await post(user, body));
      }
      assert.deepEqual(await listed(user), []);
    });

    test('name: only Unicode whitespace (U+0020, U+00A0, U+2003, U+3000, tabs) → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const name of [' ', '   ', '\u00a0', '\u2003', '\u3000', ' \u00a0\u3000 ', '\u2028']) {
        await assertBadRequest(await post(user, JSON.stringify({ id: 1, name })));
      }
      // Whitespace around other characters is kept as sent.
      const padded = await post(user, JSON.stringify({ id: 2, name: ' Fern\u00a0' }));
      assert.equal(padded.status, 200);
      assert.deepEqual(await padded.json(), { name: ' Fern\u00a0' });
    });

    test('name: control characters U+0000–U+001F and U+007F → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const control of ['\u0000', '\u0001', '\t', '\n', '\r', '\u001f', '\u007f']) {
        await assertBadRequest(await post(user, JSON.stringify({ id: 1, name: `Fe${control}rn` })));
      }
      assert.deepEqual(await listed(user), []);
    });

    test('tag: 1 to 64 code points; an emoji counts once', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const emoji = '\u{1F331}';
      assert.equal((await post(user, JSON.stringify({ id: 1, name: 'A', tag: emoji.repeat(64) }))).status, 200);
      assert.equal((await post(user, JSON.stringify({ id: 2, name: 'B', tag: 't' }))).status, 200);
      await assertBadRequest(await post(user, JSON.stringify({ id: 3, name: 'C', tag: emoji.repeat(65) })));
      await assertBadRequest(await post(user, JSON.stringify({ id: 4, name: 'D', tag: 'x'.repeat(65) })));
      assert.equal(((await listed(user)) as unknown[]).length, 2);
    });

    test('tag: null, empty, non-string → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const tag of ['null', '""', '7', 'true', '["a"]', '{}']) {
        await assertBadRequest(await post(user, `{"id":1,"name":"Fern","tag":${tag}}`));
      }
      assert.deepEqual(await listed(user), []);
    });

    test('tag: only whitespace or control characters → 400', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      for (const tag of [' ', '\u00a0', '\u3000', '\u2003 ', 'a\u0000', 'a\nb', '\u007f']) {
        await assertBadRequest(await post(user, JSON.stringify({ id: 1, name: 'Fern', tag })));
      }
      assert.deepEqual(await listed(user), []);
    });

    test('other fields: ignored, never stored, never echoed', async (t) => {
      const user = await (await startTestServer(t, kind)).user();
      const response = await post(user, '{"id":5,"name":"Fern","colour":"green","nested":{"id":9,"id":10},"status":null}');
      assert.equal(response.status, 200);
      assert.equal(await response.text(), '{"name":"Fern"}');
      assert.equal(JSON.stringify(await listed(user)), '[{"name":"Fern"}]');
      // A retry that differs only in ignored fields is the same plant.
      const retry = await post(user, '{"id":5,"name":"Fern","colour":"red"}');
      assert.equal(retry.status, 200);
      assert.equal(await retry.text(), '{"name":"Fern"}');
    });
  });
}

