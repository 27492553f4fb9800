/** How the benchmark decides a target is met: both readings of "medians", and no errors counted as throughput. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Row } from '../../bench/report.js';
import { SQLITE_GOALS, checkTargets } from '../../bench/targets.js';

function row(server: Row['server'], rps: number, p99Ms: number, ratio?: { rps: number; p99: number }, non2xx = 0): Row {
  return {
    scenario: 'many',
    server,
    rps,
    p50Ms: 1,
    p99Ms,
    non2xx,
    serverCpuUs: 50,
    postgresCpuUs: undefined,
    ratios: ratio === undefined ? {} : { baseline: ratio },
    writesPerBatch: undefined,
    msPerBatch: undefined,
  };
}

function manyTargets(plantstore: Row): { rps: boolean | undefined; p99: boolean | undefined } {
  const targets = checkTargets([row('baseline', 20_000, 6), plantstore], SQLITE_GOALS, undefined);
  return {
    rps: targets.find((target) => target.name === 'many req/s ratio to in-memory baseline')?.met,
    p99: targets.find((target) => target.name === 'many p99')?.met,
  };
}

test('a target is met only when the median of the paired ratios and the ratio of the medians both meet it', () => {
  assert.deepEqual(manyTargets(row('plantstore', 15_000, 10, { rps: 0.75, p99: 1.7 })), { rps: true, p99: true });
  // The run of 2026-11-28 07:46: 0.71 by the paired ratios, 13,846 against 21,065 req/s by the medians.
  assert.deepEqual(manyTargets(row('plantstore', 13_200, 10, { rps: 0.71, p99: 1.7 })), { rps: false, p99: true });
  assert.deepEqual(manyTargets(row('plantstore', 15_000, 13, { rps: 0.75, p99: 1.9 })), { rps: true, p99: false });
});

test('throughput with non-2xx responses does not meet a target', () => {
  assert.deepEqual(manyTargets(row('plantstore', 15_000, 10, { rps: 0.75, p99: 1.7 }, 3)).rps, false);
});
