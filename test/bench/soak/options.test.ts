/** The command line of `npm run soak`. */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { UsageError, parseSoakOptions } from '../../../bench/soak/options.js';

describe('soak options', () => {
  test('default to ten minutes, docs/soak.md, 100 owners and 50 connections', () => {
    assert.deepEqual(parseSoakOptions([]), { seconds: 600, report: resolve('docs/soak.md'), owners: 100, connections: 50 });
  });

  test('take a duration in seconds or minutes', () => {
    for (const [text, seconds] of [['5s', 5], ['90', 90], ['2m', 120], ['1.5m', 90]] as const) {
      assert.equal((parseSoakOptions(['--duration', text]) as { seconds: number }).seconds, seconds, text);
    }
  });

  test('refuse a bad duration, report, count or option with a UsageError', () => {
    for (const args of [['--duration', 'forever'], ['--duration', '0s'], ['--duration', '5h'], ['--report', 'soak.txt'], ['--owners', '0'], ['--connections', 'x'], ['--nope']]) {
      assert.throws(() => parseSoakOptions(args), UsageError, args.join(' '));
    }
  });
});
