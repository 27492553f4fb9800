import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PlantStoreResponseError } from '../../src/client/errors.js';
import { nextCursor } from '../../src/client/link.js';
import { retryDelayMs, sleep } from '../../src/client/retry.js';

describe('nextCursor', () => {
  test('reads after from the rel="next" link, exactly', () => {
    assert.equal(nextCursor('</plants?limit=2&after=9223372036854775807>; rel="next"', 200), 2n ** 63n - 1n);
    assert.equal(nextCursor('</plants?limit=2&after=-5&fields=id,name,tag>; rel=next', 200), -5n);
  });

  test('picks next among several links and relation types', () => {
    assert.equal(nextCursor('</plants?after=1>; rel="prev", </plants?after=9&tag=a%2Cb>; rel="last next"', 200), 9n);
  });

  test('a quoted parameter holding a comma or a semicolon before rel, as a proxy may add', () => {
    assert.equal(nextCursor('</plants?after=5>; title="a, b"; rel="next"', 200), 5n);
    assert.equal(nextCursor('</plants?after=1>; rel="prev"; title="x, y", </plants?after=7>; title="p; q, \\"r\\""; rel="next"', 200), 7n);
  });

  test('a rel inside a quoted parameter is no rel: only the link\'s own counts', () => {
    assert.equal(nextCursor('</plants?limit=2&after=0>; title="see; rel=next page"; rel="prev"', 200), undefined);
    assert.equal(nextCursor('</plants?after=0>; title="x; rel=next"', 200), undefined);
    assert.equal(nextCursor('</plants?after=3>; title="rel=prev; a"; rel=next', 200), 3n);
  });

  test('relation types are compared without case, may be separated by any white space, and only the first rel counts', () => {
    assert.equal(nextCursor('</plants?after=4>; rel="NEXT"', 200), 4n);
    assert.equal(nextCursor('</plants?after=4>; REL=next', 200), 4n);
    assert.equal(nextCursor('</plants?after=4>; rel="last\tnext"', 200), 4n);
    assert.equal(nextCursor('</plants?after=4>; rel="prev"; rel="next"', 200), undefined);
  });

  test('an escaped quote does not end a quoted parameter', () => {
    assert.equal(nextCursor('</plants?after=1>; title="x \\" y"; rel=next', 200), 1n);
  });

  test('no header or no next link: undefined', () => {
    assert.equal(nextCursor(null, 200), undefined);
    assert.equal(nextCursor('</plants?after=1>; rel="prev"', 200), undefined);
  });

  test('a next link without an int64 after throws: the walk must not end as if the list were whole', () => {
    for (const link of ['</plants?limit=1>; rel="next"', '</plants?after=1.5>; rel="next"', '</plants?cursor=abc>; rel="next"', `</plants?after=${2n ** 63n}>; rel="next"`]) {
      assert.throws(() => nextCursor(link, 200), (error: unknown) => error instanceof PlantStoreResponseError && error.status === 200, link);
    }
  });
});

describe('retryDelayMs', () => {
  test('seconds, an HTTP date, or a doubling pause when there is no Retry-After', () => {
    assert.equal(retryDelayMs('2', 0), 2000);
    assert.equal(retryDelayMs('Wed, 21 Oct 2015 07:28:10 GMT', 0, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')), 10_000);
    assert.equal(retryDelayMs('Wed, 21 Oct 2015 07:28:00 GMT', 0, Date.parse('Wed, 21 Oct 2015 08:00:00 GMT')), 0);
    assert.equal(retryDelayMs(null, 0), 250);
    assert.equal(retryDelayMs('soon', 2), 1000);
    assert.equal(retryDelayMs('1.5', 0), 1500, 'a fraction is seconds, not a date');
  });
});

describe('sleep', () => {
  test('a signal aborted already rejects at once with its reason', async () => {
    const started = Date.now();
    await assert.rejects(sleep(5_000, AbortSignal.abort(new Error('gone'))), /gone/);
    assert.ok(Date.now() - started < 1_000);
  });
});
