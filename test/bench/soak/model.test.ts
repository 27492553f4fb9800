/**
 * The soak's model of acknowledged writes: what it must find in the final listing, and what
 * it must leave open when a write got no definite answer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WriteModel, lostWrites } from '../../../bench/soak/model.js';

/** alice: seeded 1 and 2, created 10 (200), created 11 then deleted it (204). */
function aliceModel(): WriteModel {
  const model = new WriteModel();
  model.seeded('alice', [1, 2]);
  model.createAnswered('alice', 10, 200);
  model.createAnswered('alice', 11, 200);
  model.deleteAnswered('alice', 11, 204, model.createdBefore('alice', 11));
  return model;
}

describe('the write model', () => {
  test('a listing with every acknowledged write and none of the deleted passes', () => {
    const check = aliceModel().check(new Map([['alice', [1, 2, 10]]]));
    assert.deepEqual(check, { lostCreates: [], lostDeletes: [], phantoms: [], present: 3 });
  });

  test('a create answered 200 and missing from the listing is a lost write', () => {
    const check = aliceModel().check(new Map([['alice', [1, 2]]]));
    assert.deepEqual(check.lostCreates, ['alice 10']);
    assert.equal(lostWrites(check), 1);
  });

  test('a seeded plant missing from the listing is a lost write', () => {
    assert.deepEqual(aliceModel().check(new Map([['alice', [2, 10]]])).lostCreates, ['alice 1']);
  });

  test('a plant deleted with 204 and listed again is a lost delete', () => {
    const check = aliceModel().check(new Map([['alice', [1, 2, 10, 11]]]));
    assert.deepEqual(check.lostDeletes, ['alice 11']);
    assert.equal(lostWrites(check), 1);
  });

  test('a listed plant that nobody wrote is reported', () => {
    assert.deepEqual(aliceModel().check(new Map([['alice', [1, 2, 10, 99]]])).phantoms, ['alice 99']);
  });

  test("another owner's plant under this owner is a phantom, and this owner's loss is still found", () => {
    const model = aliceModel();
    model.createAnswered('bob', 10, 200);
    const check = model.check(new Map([['alice', [1, 2, 10]], ['bob', [11]]]));
    assert.deepEqual(check.phantoms, ['bob 11']);
    assert.deepEqual(check.lostCreates, ['bob 10']);
  });

  test('a DELETE answered 404 after its create was answered 200 is a lost write at once', () => {
    const model = aliceModel();
    model.createAnswered('alice', 12, 200);
    model.deleteAnswered('alice', 12, 404, model.createdBefore('alice', 12));
    assert.deepEqual(model.check(new Map([['alice', [1, 2, 10]]])).lostCreates, ['alice 12']);
  });

  test('a DELETE answered 404 before its create was answered is no loss: the plant stays', () => {
    const model = aliceModel();
    const createdBefore = model.createdBefore('alice', 12);
    model.createAnswered('alice', 12, 200);
    model.deleteAnswered('alice', 12, 404, createdBefore);
    assert.equal(createdBefore, false);
    assert.deepEqual(model.check(new Map([['alice', [1, 2, 10, 12]]])).lostCreates, []);
    assert.deepEqual(model.check(new Map([['alice', [1, 2, 10]]])).lostCreates, ['alice 12']);
  });

  test('a write without a definite answer may have happened or not', () => {
    const model = aliceModel();
    model.createAnswered('alice', 20, undefined);
    model.createAnswered('alice', 21, 503);
    model.createAnswered('alice', 22, 200);
    model.deleteAnswered('alice', 22, undefined, true);
    for (const listed of [[1, 2, 10], [1, 2, 10, 20, 21, 22]]) {
      const check = model.check(new Map([['alice', listed]]));
      assert.equal(lostWrites(check) + check.phantoms.length, 0, `listed ${listed.join(',')}`);
    }
  });

  test('counts the acknowledged writes', () => {
    const model = aliceModel();
    assert.equal(model.acknowledgedCreates, 2);
    assert.equal(model.acknowledgedDeletes, 1);
  });
});
