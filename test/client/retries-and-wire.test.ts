import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { PlantStoreClient, PlantStoreError, PlantStoreResponseError } from 'plantstore/client';

interface Seen {
  method: string;
  url: string;
  body: string;
  authorization: string | undefined;
  contentType: string | undefined;
  at: number;
}

type Answer = (res: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 that gives the scripted answers in order and records each request. */
async function scriptedServer(t: TestContext, answers: Answer[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body, authorization: req.headers.authorization, contentType: req.headers['content-type'], at: Date.now() });
      const answer = answers.shift() ?? ((r: ServerResponse) => json(r, 500, { error: 500, message: 'script ran out' }));
      answer(res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

const unavailable = (retryAfter: string) => (res: ServerResponse) =>
  json(res, 503, { error: 503, message: 'The service cannot use its database right now; try again shortly.' }, { 'retry-after': retryAfter });

describe('PlantStoreClient retries', () => {
  test('a 503 with Retry-After is retried after it, and the 200 that follows is the answer', async (t) => {
    const { url, seen } = await scriptedServer(t, [unavailable('1'), (res) => json(res, 200, { name: 'Monstera' })]);
    const client = new PlantStoreClient({ baseUrl: url, token: 'pst_abc' });
    const plant = await client.createPlant({ id: 2n ** 63n - 1n, name: 'Monstera' });
    assert.deepEqual(plant, { id: 2n ** 63n - 1n, name: 'Monstera' });
    assert.equal(seen.length, 2);
    const [first, second] = seen as [Seen, Seen];
    assert.ok(second.at - first.at >= 900, `retried after ${second.at - first.at} ms, before Retry-After: 1`);
    assert.equal(second.body, first.body, 'the retry sends the same body');
  });

  test('a 429 is retried too, also with an HTTP-date Retry-After', async (t) => {
    const { url, seen } = await scriptedServer(t, [
      (res) => json(res, 429, { error: 429, message: 'Too many requests.' }, { 'retry-after': new Date(Date.now() - 1000).toUTCString() }),
      (res) => json(res, 200, '[]'),
    ]);
    const page = await new PlantStoreClient({ baseUrl: url, token: 'pst_abc' }).listPlants();
    assert.deepEqual(page, { plants: [], nextAfter: undefined });
    assert.equal(seen.length, 2);
  });

  test('retries are bounded: after `retries` more 503s the last one is thrown', async (t) => {
    const { url, seen } = await scriptedServer(t, [unavailable('0'), unavailable('0'), unavailable('0')]);
    const client = new PlantStoreClient({ baseUrl: url, token: 'pst_abc', retries: 2 });
    await assert.rejects(client.deletePlant(1n), (error: unknown) => {
      assert.ok(error instanceof PlantStoreError);
      assert.equal(error.status, 503);
      assert.match(error.message, /database/);
      return true;
    });
    assert.equal(seen.length, 3);
  });

  test('a delete retried after a 503 that answers 404 is done: the 503 may have come after the delete; after a 429 the 404 stands', async (t) => {
    const notFound = (res: ServerResponse) => json(res, 404, { error: 404, message: 'No plant with this id exists.' });
    const { url, seen } = await scriptedServer(t, [
      unavailable('0'),
      notFound,
      (res) => json(res, 429, { error: 429, message: 'Too many requests.' }, { 'retry-after': '0' }),
      notFound,
    ]);
    const client = new PlantStoreClient({ baseUrl: url, token: 'pst_abc' });
    await client.deletePlant(7n);
    assert.equal(seen.length, 2);
    await assert.rejects(client.deletePlant(7n), { status: 404 });
    assert.equal(seen.length, 4);
  });

  test('by default three retries, each whatever its Retry-After up to 30 s', async (t) => {
    const { url, seen } = await scriptedServer(t, [unavailable('0'), unavailable('0'), unavailable('0'), unavailable('0')]);
    await assert.rejects(new PlantStoreClient({ baseUrl: url, token: 'pst_abc' }).getPlant(1n), { status: 503 });
    assert.equal(seen.length, 4);
    // 30 s is the longest pause taken: aborted during it, the client shows it was waiting.
    const waiting = await scriptedServer(t, [unavailable('30')]);
    const abort = new AbortController();
    const getting = new PlantStoreClient({ baseUrl: waiting.url, token: 'pst_abc' }).getPlant(1n, { signal: abort.signal });
    setTimeout(() => abort.abort(new Error('stop waiting')), 300);
    await assert.rejects(getting, /stop waiting/);
  });

  test('a Retry-After longer than maxRetryDelayMs is thrown at once', async (t) => {
    const { url, seen } = await scriptedServer(t, [unavailable('3600')]);
    await assert.rejects(new PlantStoreClient({ baseUrl: url, token: 'pst_abc' }).getPlant(1n), { status: 503 });
    assert.equal(seen.length, 1);
  });

  test('other refusals are not retried', async (t) => {
    const { url, seen } = await scriptedServer(t, [(res) => json(res, 500, { error: 500, message: 'The server failed unexpectedly.' })]);
    await assert.rejects(new PlantStoreClient({ baseUrl: url, token: 'pst_abc' }).getPlant(1n), { status: 500, message: 'The server failed unexpectedly.' });
    assert.equal(seen.length, 1);
  });
});

describe('PlantStoreClient on the wire', () => {
  test('requests carry the token, exact integer ids, and the base URL path prefix', async (t) => {
    const { url, seen } = await scriptedServer(t, [
      (res) => json(res, 200, { name: 'a', tag: 't,1' }),
      (res) => json(res, 200, '{"id":-9223372036854775808,"name":"a"}'),
      (res) => json(res, 200, '[{"id":-9223372036854775807,"name":"a"}]', { link: '</plants?limit=1&after=-9223372036854775807&tag=x%2Cy&fields=id,name,tag>; rel="next"' }),
      (res) => {
        res.writeHead(204);
        res.end();
      },
    ]);
    const client = new PlantStoreClient({ baseUrl: `${url}/api`, token: 'pst_abc' });
    await client.createPlant({ id: -(2n ** 63n), name: 'a', tag: 't,1' });
    assert.deepEqual(await client.getPlant(-(2n ** 63n)), { id: -(2n ** 63n), name: 'a' });
    const page = await client.listPlants({ limit: 1, tag: 'x,y', after: -(2n ** 63n) });
    assert.deepEqual(page, { plants: [{ id: -(2n ** 63n - 1n), name: 'a' }], nextAfter: -(2n ** 63n - 1n) });
    await client.deletePlant(2n ** 53n + 1n);
    assert.deepEqual(
      seen.map((s) => [s.method, s.url, s.body]),
      [
        ['POST', '/api/plants', '{"id":-9223372036854775808,"name":"a","tag":"t,1"}'],
        ['GET', '/api/plants/-9223372036854775808?fields=id%2Cname%2Ctag', ''],
        ['GET', '/api/plants?limit=1&after=-9223372036854775808&tag=x%2Cy&fields=id%2Cname%2Ctag', ''],
        ['DELETE', '/api/plants/9007199254740993', ''],
      ],
    );
    assert.ok(seen.every((s) => s.authorization === 'Bearer pst_abc'));
    assert.equal(seen[0]?.contentType, 'application/json');
  });

  test('an error without an Error body throws its status line', async (t) => {
    const { url } = await scriptedServer(t, [
      (res) => {
        res.writeHead(502, 'Bad Gateway', { 'content-type': 'text/html' });
        res.end('<html>bad gateway</html>');
      },
    ]);
    await assert.rejects(new PlantStoreClient({ baseUrl: url, token: 'pst_abc' }).listPlants(), { status: 502, message: 'The service answered 502 Bad Gateway.' });
  });

  test('a list whose plants carry no id (a server without fields=id) throws PlantStoreResponseError', async (t) => {
    const { url } = await scriptedServer(t, [(res) => json(res, 200, '[{"name":"a"}]')]);
    await assert.rejects(new PlantStoreClient({ baseUrl: url, token: 'pst_abc' }).listPlants(), (error: unknown) => {
      assert.ok(error instanceof PlantStoreResponseError);
      assert.match(error.message, /has no id/);
      return true;
    });
  });

  test('a plant whose id is outside int64 throws PlantStoreResponseError: ids stay what the contract allows', async (t) => {
    const { url } = await scriptedServer(t, [(res) => json(res, 200, '[{"id":9223372036854775808,"name":"a"}]')]);
    await assert.rejects(new PlantStoreClient({ baseUrl: url, token: 'pst_abc' }).listPlants(), (error: unknown) => {
      assert.ok(error instanceof PlantStoreResponseError);
      assert.match(error.message, /9223372036854775808, outside the signed 64-bit range/);
      return true;
    });
  });

  test('a 200 whose body is not JSON throws PlantStoreResponseError', async (t) => {
    const { url } = await scriptedServer(t, [(res) => json(res, 200, '[{"id":1,"name":"a"')]);
    await assert.rejects(new PlantStoreClient({ baseUrl: url, token: 'pst_abc' }).listPlants(), PlantStoreResponseError);
  });

  test('a fetch passed in the options is the one used', async () => {
    const urls: string[] = [];
    const client = new PlantStoreClient({
      baseUrl: 'http://plants.example/',
      token: 'pst_abc',
      fetch: async (url) => {
        urls.push(url);
        return new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await client.listPlants({ after: 5n });
    assert.deepEqual(urls, ['http://plants.example/plants?after=5&fields=id%2Cname%2Ctag']);
  });
});

describe('PlantStoreClient following Link', () => {
  /** A fetch that answers each page in turn with its plants and Link header. */
  function pages(...answers: [ids: number[], link: string | undefined][]) {
    let next = 0;
    return async () => {
      const [ids, link] = answers[Math.min(next++, answers.length - 1)] as [number[], string | undefined];
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(link === undefined ? {} : { link }) };
      return new Response(JSON.stringify(ids.map((id) => ({ id, name: `p${id}` }))), { status: 200, headers });
    };
  }

  test('a next link that does not continue after the page\'s last plant throws, rather than repeating or skipping plants', async () => {
    for (const [what, fetch] of [
      ['the same page again and again', pages([[5], '</plants?after=5>; rel="next"'])],
      ['a cursor going back', pages([[5], '</plants?after=0>; rel="next"'])],
      ['a cursor jumping ahead', pages([[1], '</plants?after=100>; rel="next"'], [[101], undefined])],
      ['a next link under an empty page', pages([[], '</plants?after=7>; rel="next"'])],
    ] as const) {
      const client = new PlantStoreClient({ baseUrl: 'http://plants.example/', token: 'pst_abc', fetch });
      const seen: bigint[] = [];
      await assert.rejects(
        (async () => {
          for await (const plant of client.plants({ after: 5n, pageSize: 1 })) {
            seen.push(plant.id);
            assert.ok(seen.length < 10, `${what}: the walk goes on`);
          }
        })(),
        (error: unknown) => error instanceof PlantStoreResponseError && /does not continue after the page's last plant/.test(error.message),
        what,
      );
      assert.ok(seen.length <= 1, `${what}: ${seen.join(', ')}`);
    }
  });

  test('a maxRetryDelayMs no timer can hold is refused', () => {
    for (const maxRetryDelayMs of [2 ** 31, -1, Number.NaN]) {
      assert.throws(() => new PlantStoreClient({ baseUrl: 'http://plants.example/', token: 'pst_abc', maxRetryDelayMs }), RangeError, String(maxRetryDelayMs));
    }
    assert.ok(new PlantStoreClient({ baseUrl: 'http://plants.example/', token: 'pst_abc', maxRetryDelayMs: 2 ** 31 - 1 }));
    assert.ok(new PlantStoreClient({ baseUrl: 'http://plants.example/', token: 'pst_abc', maxRetryDelayMs: 0 }), 'never wait: 0 is allowed');
  });

  test('a page size below 1 and a token with a space or a control character are refused', async () => {
    const client = new PlantStoreClient({ baseUrl: 'http://plants.example/', token: 'pst_abc' });
    await assert.rejects(client.plants({ pageSize: 0 }).next(), RangeError);
    for (const token of ['a b', 'a\tb', '']) assert.throws(() => new PlantStoreClient({ baseUrl: 'http://plants.example/', token }), TypeError, JSON.stringify(token));
  });
});

describe('PlantStoreClient with a signal', () => {
  test('an abort during a Retry-After pause rejects with its reason at once, and nothing more is sent', async (t) => {
    const { url, seen } = await scriptedServer(t, [unavailable('20'), (res) => json(res, 200, { name: 'Monstera' })]);
    const client = new PlantStoreClient({ baseUrl: url, token: 'pst_abc' });
    const controller = new AbortController();
    const started = Date.now();
    const create = client.createPlant({ id: 1n, name: 'Monstera' }, { signal: controller.signal });
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = new Error('the caller gave up');
    controller.abort(reason);
    await assert.rejects(create, (error) => error === reason);
    assert.ok(Date.now() - started < 10_000, 'the 20 s pause was cut short');
    assert.equal(seen.length, 1);
  });

  test('an abort while the server has not answered rejects the request', async (t) => {
    const { url, seen } = await scriptedServer(t, [() => undefined]); // never answers
    const client = new PlantStoreClient({ baseUrl: url, token: 'pst_abc' });
    const controller = new AbortController();
    const list = client.listPlants({ limit: 5, signal: controller.signal });
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await assert.rejects(list, { name: 'AbortError' });
  });

  test('an aborted signal sends nothing; plants() and deletePlant take the signal too', async (t) => {
    const { url, seen } = await scriptedServer(t, []);
    const client = new PlantStoreClient({ baseUrl: url, token: 'pst_abc' });
    const signal = AbortSignal.abort();
    await assert.rejects(client.getPlant(1n, { signal }), { name: 'AbortError' });
    await assert.rejects(client.deletePlant(1n, { signal }), { name: 'AbortError' });
    await assert.rejects(client.plants({ signal }).next(), { name: 'AbortError' });
    assert.equal(seen.length, 0);
  });
});
