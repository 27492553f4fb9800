/** The rule for memory (and file descriptors) that keep growing after warm-up. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RSS_LIMIT_MB, growthAfterWarmUp, type Sample } from '../../../bench/soak/growth.js';

/** One sample a second over `seconds` seconds. */
function series(seconds: number, value: (t: number) => number): Sample[] {
  return Array.from({ length: seconds }, (_, i) => ({ t: i + 1, value: value(i + 1) }));
}

/** A garbage-collected heap: a saw of 10 MiB teeth every 20 s over a floor. */
const saw = (floor: (t: number) => number) => (t: number) => floor(t) + ((t % 20) / 20) * 10;

describe('growth after warm-up', () => {
  test('a saw on a flat floor is flat, however high its teeth', () => {
    const g = growthAfterWarmUp(series(600, saw(() => 100)), 600, RSS_LIMIT_MB);
    assert.equal(g.judged, true);
    assert.equal(g.ok, true);
    assert.ok(Math.abs(g.growth) < 1, `growth ${g.growth}`);
  });

  test('growth during the warm-up half does not count', () => {
    const g = growthAfterWarmUp(series(600, saw((t) => (t < 300 ? 60 + t / 5 : 120))), 600, RSS_LIMIT_MB);
    assert.equal(g.ok, true);
  });

  test('a floor rising 2 MiB a minute over ten minutes fails', () => {
    const g = growthAfterWarmUp(series(600, saw((t) => 100 + t / 30)), 600, RSS_LIMIT_MB);
    assert.equal(g.judged, true);
    assert.equal(g.ok, false);
    assert.ok(g.growth > RSS_LIMIT_MB && g.growth < 6, `growth ${g.growth}`);
  });

  test('a floor stepping up by more than the limit within the second half fails; less passes', () => {
    assert.equal(growthAfterWarmUp(series(600, (t) => (t < 400 ? 100 : 104.5)), 600, RSS_LIMIT_MB).ok, false);
    assert.equal(growthAfterWarmUp(series(600, (t) => (t < 400 ? 100 : 103.5)), 600, RSS_LIMIT_MB).ok, true);
  });

  test('the minima of the quarters are what it compares', () => {
    const g = growthAfterWarmUp(series(40, (t) => t), 40, RSS_LIMIT_MB);
    assert.deepEqual([g.thirdQuarterMin, g.lastQuarterMin, g.growth], [20, 30, 10]);
  });

  test('a run too short for five samples a quarter is not judged and not failed', () => {
    const g = growthAfterWarmUp(series(12, (t) => t * 10), 12, RSS_LIMIT_MB);
    assert.equal(g.judged, false);
    assert.equal(g.ok, true);
  });
});
