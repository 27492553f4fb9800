/** andThen and orElse: values stay values, promises stay promises, and failures of either kind reach recover. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { andThen, orElse } from '../../src/util/maybe-promise.js';

test('andThen calls on at once with a value and after a promise otherwise', async () => {
  assert.equal(andThen(2, (n) => n + 1), 3);
  const later = andThen(Promise.resolve(2), (n) => n + 1);
  assert.ok(later instanceof Promise);
  assert.equal(await later, 3);
});

test('orElse gives a value as it is, and a thrown failure to recover at once', () => {
  assert.equal(orElse(() => 1, () => 2), 1);
  assert.equal(orElse(() => { throw new Error('no'); }, (error) => (error as Error).message), 'no');
  assert.throws(() => orElse(() => { throw new Error('no'); }, () => { throw new Error('still no'); }), /still no/);
});

test('orElse gives a rejection to recover, whose value or promise settles the result', async () => {
  const fails = () => Promise.reject(new Error('no'));
  assert.equal(await orElse(() => Promise.resolve(1), () => 2), 1);
  assert.equal(await orElse(fails, (error) => (error as Error).message), 'no');
  assert.equal(await orElse(fails, async () => 'later'), 'later');
  await assert.rejects(async () => orElse(fails, () => { throw new Error('still no'); }), /still no/);
  const thrownThenAsync = orElse(() => { throw new Error('no'); }, async () => 'recovered');
  assert.ok(thrownThenAsync instanceof Promise);
  assert.equal(await thrownThenAsync, 'recovered');
});
