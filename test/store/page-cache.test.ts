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

