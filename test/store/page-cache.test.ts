import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredPlant } from '../../src/plants/plant.js';
import { PageCache } from '../../src/store/sqlite/page-cache.js';

function page(size: number, name = (i: number) => `p${i}`) {
  const plants: StoredPlant[] = Array.from({ length: size }, (_, i) => ({ id: BigInt(i), name: name(i), tag: null }));
  return { plants, hasMore: false };
}

const cached = (cache: PageCache, owner: string, key = '1000') => cache.get(owner, key) !== undefined;

test('pages are kept per owner and key, and forget drops only that owner', () => {
  const cache = new PageCache();
  const first = page(2);
  cache.set('ann', '10', first);
  cache.set('bob', '10', page(1));
  assert.equal(cache.get('ann', '10'), first);
  assert.equal(cache.get('ann', '10 5'), undefined);
  cache.forget('ann');
  assert.equal(cache.get('ann', '10'), undefined);
  assert.notEqual(cache.get('bob', '10'), undefined);
  cache.clear();
  assert.equal(cache.get('bob', '10'), undefined);
});

test('past the budget the owners read least recently go first', () => {
  const cache = new PageCache();
  for (let i = 0; i < 100; i++) cache.set(`owner${i}`, '1000', page(1000));
  assert.ok(cached(cache, 'owner0') && cached(cache, 'owner1'), 'a hundred small pages of 1,000 fit');
  assert.ok(cached(cache, 'owner0')); // read again: now the most recent
  for (let i = 100; i < 200; i++) cache.set(`owner${i}`, '1000', page(1000));
  assert.ok(cached(cache, 'owner0'), 'the owner just read stays');
  assert.ok(!cached(cache, 'owner2'), 'the oldest unread owner went');
  assert.ok(cached(cache, 'owner199'), 'the newest page stays');
});

test('long names take more of the budget, so fewer pages stay', () => {
  const cache = new PageCache();
  const long = () => 'x'.repeat(256);
  for (let i = 0; i < 20; i++) cache.set(`owner${i}`, '1000', page(1000, long));
  const kept = Array.from({ length: 20 }, (_, i) => cached(cache, `owner${i}`)).filter(Boolean).length;
  assert.ok(kept >= 10 && kept <= 14, `about 4,000,000 / 288,064 pages stay, kept ${kept}`);
});

test('empty pages count too, so a flood of owners without plants stays bounded', () => {
  const cache = new PageCache();
  for (let i = 0; i < 100_000; i++) cache.set(`owner${i}`, '10', page(0));
  assert.equal(cache.get('owner0', '10'), undefined);
  assert.notEqual(cache.get('owner99999', '10'), undefined);
});

test('an owner whose page was just stored is not the one evicted to make room for it', () => {
  const cache = new PageCache();
  for (let i = 0; i < 100; i++) cache.set(`owner${i}`, '1000', page(1000));
  cache.set('owner0', '1000 1000', page(1000)); // owner0 was the oldest; now it is the newest
  for (let i = 100; i < 116; i++) cache.set(`owner${i}`, '1000', page(1000));
  assert.ok(cached(cache, 'owner0', '1000 1000'));
  assert.ok(!cached(cache, 'owner1'));
});


test('eviction follows the last read exactly, also for an owner read right after another', () => {
  const cache = new PageCache();
  cache.set('ann', '1000', page(1000));
  cache.set('bob', '1000', page(1000));
  assert.ok(cached(cache, 'ann'));
  assert.ok(cached(cache, 'bob')); // bob is now the owner read last, ann the one before
  // A page of 1,000 plants here counts 35,954 characters: 111 fit in the budget, the 112th evicts one.
  for (let i = 0; i < 109; i++) cache.set(`owner${i}`, '1000', page(1000));
  assert.equal(cache.get('ann', '1000 0'), undefined); // (a miss moves nothing)
  cache.set('extra', '1000', page(1000));
  assert.ok(!cached(cache, 'ann'), 'ann, read before bob, went first');
  assert.ok(cached(cache, 'bob'));
});

test('a created or deleted id drops only the pages it can change', () => {
  const cache = new PageCache();
  const first = { plants: [1n, 2n, 3n].map((id) => ({ id, name: 'p', tag: null })), hasMore: true };
  const tail = { plants: [8n, 9n].map((id) => ({ id, name: 'p', tag: null })), hasMore: false };
  const fill = () => {
    cache.set('ann', '3', first, { after: undefined, nextId: 5n });
    cache.set('ann', '3 7', tail, { after: 7n, nextId: undefined });
  };
  const kept = () => [cache.get('ann', '3') !== undefined, cache.get('ann', '3 7') !== undefined];
  fill();
  cache.forgetAround('ann', 6n); // between the pages: the first keeps its next id, the tail starts later
  assert.deepEqual(kept(), [true, true]);
  cache.forgetAround('ann', 5n); // the first page's next id: its "more" may change
  assert.deepEqual(kept(), [false, true]);
  fill();
  cache.forgetAround('ann', 0n);
  assert.deepEqual(kept(), [false, true]);
  fill();
  cache.forgetAround('ann', 7n); // the tail's `after` itself is not in it
  assert.deepEqual(kept(), [true, true]);
  cache.forgetAround('ann', 1000n); // past the end: the tail page grows
  assert.deepEqual(kept(), [true, false]);
  cache.forgetAround('bob', 1n);
  assert.deepEqual(kept(), [true, false]);
});

test('a page stored without bounds is dropped by any write of its owner', () => {
  const cache = new PageCache();
  cache.set('ann', '10', page(2));
  cache.forgetAround('ann', 10_000n);
  assert.equal(cache.get('ann', '10'), undefined);
});

test('an owner with very many cached pages loses them all on a write, and the budget is repaid', () => {
  const cache = new PageCache();
  for (let i = 0; i < 65; i++) cache.set('ann', `1 ${i * 10}`, page(1), { after: BigInt(i * 10), nextId: BigInt(i * 10 + 5) });
  cache.forgetAround('ann', 100_000n);
  assert.equal(cache.get('ann', '1 0'), undefined);
  for (let i = 0; i < 100; i++) cache.set(`owner${i}`, '1000', page(1000));
  assert.ok(cached(cache, 'owner0'), 'the forgotten pages no longer count against the budget');
});
