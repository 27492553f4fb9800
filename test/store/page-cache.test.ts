import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredPlant } from '../../src/plants/plant.js';
import { PageCache } from '../../src/store/sqlite/page-cache.js';

function page(size: number) {
  const plants: StoredPlant[] = Array.from({ length: size }, (_, i) => ({ id: BigInt(i), name: `p${i}`, tag: null }));
  return { plants, hasMore: false };
}

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

test('past 50,000 cached plants the oldest owners go first, the newest page stays', () => {
  const cache = new PageCache();
  for (let i = 0; i < 60; i++) cache.set(`owner${i}`, '1000', page(1001));
  const kept = Array.from({ length: 60 }, (_, i) => cache.get(`owner${i}`, '1000') !== undefined);
  const firstKept = kept.indexOf(true);
  assert.ok(firstKept > 0, 'the oldest owners were dropped');
  assert.ok(kept.slice(firstKept).every(Boolean), 'only the oldest were dropped');
  assert.ok((60 - firstKept) * 1002 <= 50_000, 'what is kept fits the bound');
});

test('empty pages count too, so a flood of owners without plants stays bounded', () => {
  const cache = new PageCache();
  for (let i = 0; i < 100_000; i++) cache.set(`owner${i}`, '10', page(0));
  assert.equal(cache.get('owner0', '10'), undefined);
  assert.notEqual(cache.get('owner99999', '10'), undefined);
});
