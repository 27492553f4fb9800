/**
 * `npm run soak` end to end, short: it seeds, drives the many mix against a real plantstore,
 * checks the listing against its model and writes its report, plot and samples.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { runToEnd, type CliResult } from '../../helpers/process.js';
import { tempDir } from '../../helpers/server.js';

const SOAK = fileURLToPath(new URL('../../../bench/soak/run.js', import.meta.url));

function soak(args: string[]): Promise<CliResult> {
  return runToEnd(process.execPath, [SOAK, ...args]);
}

describe('npm run soak', () => {
  test('a 5 s soak passes and writes its report, plot and samples', { timeout: 120_000 }, async (t) => {
    const report = join(tempDir(t), 'out', 'soak.md');
    const run = await soak(['--duration', '5s', '--owners', '4', '--connections', '8', '--report', report]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /soak: PASS/);

    const md = readFileSync(report, 'utf8');
    assert.match(md, /^\*\*PASS\*\*/m);
    const requests = /^\| ([\d,]+) \| \d+ \| 0 \| 0 \| 0 \|$/m.exec(md);
    assert.ok(requests !== null, `no requests row with zero 5xx, no-answer and unexpected:\n${md}`);
    assert.ok(Number(requests[1]?.replace(/,/g, '')) > 100, `too few requests: ${requests[1]}`);
    const writes = /^\| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| 0 \| 0 \| 0 \|$/m.exec(md);
    assert.ok(writes !== null, `no writes row with zero lost:\n${md}`);
    const [creates, deletes, present] = writes.slice(1).map((n) => Number(n.replace(/,/g, '')));
    // Four owners' 200 seeded plants, plus the creates, less the deletes, all listed.
    assert.equal(present, 4 * 200 + (creates as number) - (deletes as number));
    assert.ok((creates as number) > 0);
    assert.match(md, /\| RSS \| .* \| not judged \(run too short\) \|/);
    assert.match(md, /!\[[^\]]*\]\(soak\.svg\)/);

    const csv = readFileSync(report.replace(/\.md$/, '.csv'), 'utf8').trim().split('\n');
    assert.equal(csv[0], 't_s,rss_mib,open_fds,requests_per_s,js_heap_used_mib,js_heap_total_mib');
    assert.ok(csv.length >= 4, `samples: ${csv.length - 1}`);
    for (const row of csv.slice(1)) {
      const [, rss, fds, rps, heapUsed, heapTotal] = row.split(',').map(Number);
      assert.ok((rss as number) > 10 && (fds as number) > 3 && (rps as number) >= 0, row);
      assert.ok((heapUsed as number) > 1 && (heapUsed as number) <= (heapTotal as number) && (heapTotal as number) < (rss as number), row);
    }
    const svg = readFileSync(report.replace(/\.md$/, '.svg'), 'utf8');
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal(svg.match(/<polyline /g)?.length, 2);
  });

  test('a bad option is one line and the usage, exit 2', async () => {
    const run = await soak(['--duration', 'forever']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^soak: --duration forever: expected <n>s, <n>m or a number of seconds\nUsage: npm run soak/);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  });
});
