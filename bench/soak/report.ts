/** The soak's verdict, its Markdown report and the CSV of its samples. */
import { basename } from 'node:path';
import type { LoadCounts } from './driver.js';
import { FD_LIMIT, MIN_SAMPLES, RSS_LIMIT_MB, type Growth } from './growth.js';
import { lostWrites, type ModelCheck } from './model.js';
import type { SoakSample } from './sampler.js';

export interface SoakResult {
  startedAt: Date;
  seconds: number;
  owners: number;
  connections: number;
  machine: string[];
  counts: LoadCounts;
  acknowledgedCreates: number;
  acknowledgedDeletes: number;
  check: ModelCheck;
  rss: Growth;
  fds: Growth;
  /** The main thread's JavaScript heap in use, by the same rule: shown, not failed on. */
  heap: Growth;
  samples: SoakSample[];
  /** Set when the server exited during the run or the final listing failed. */
  broken?: string;
}

/** Why the soak failed; empty when it passed. */
export function failures(r: SoakResult): string[] {
  const why: string[] = [];
  if (r.broken !== undefined) why.push(r.broken);
  if (r.counts.serverErrors > 0) why.push(`${r.counts.serverErrors} answers were 5xx`);
  if (r.counts.noAnswer > 0) why.push(`${r.counts.noAnswer} requests got no answer`);
  if (r.counts.unexpected > 0) why.push(`${r.counts.unexpected} answers had a status the mix never expects`);
  if (lostWrites(r.check) > 0) why.push(`${lostWrites(r.check)} acknowledged writes were lost`);
  if (r.check.phantoms.length > 0) why.push(`${r.check.phantoms.length} listed plants were never written`);
  if (!r.rss.ok) why.push(`RSS kept growing after warm-up (+${r.rss.growth.toFixed(1)} MiB)`);
  if (!r.fds.ok) why.push(`open file descriptors kept growing after warm-up (+${r.fds.growth})`);
  return why;
}

export function samplesCsv(samples: readonly SoakSample[]): string {
  const mb = (v: number) => (Number.isNaN(v) ? '' : v.toFixed(2));
  const rows = samples.map((s) => `${s.t.toFixed(1)},${s.rssMb.toFixed(2)},${s.fds},${s.rps.toFixed(0)},${mb(s.heapUsedMb)},${mb(s.heapTotalMb)}`);
  return ['t_s,rss_mib,open_fds,requests_per_s,js_heap_used_mib,js_heap_total_mib', ...rows].join('\n') + '\n';
}

/** A row of the growth table; `failsRun` false for a figure that is shown only. */
function growthRow(name: string, g: Growth, unit: string, digits: number, failsRun = true): string {
  const n = (v: number) => (Number.isNaN(v) ? '–' : v.toFixed(digits));
  const verdict = !failsRun ? 'shown only' : !g.judged ? 'not judged (run too short)' : g.ok ? 'flat' : '**growing**';
  const u = unit === '' ? '' : ` ${unit}`;
  return `| ${name} | ${n(g.thirdQuarterMin)}${u} | ${n(g.lastQuarterMin)}${u} | ${n(g.growth)}${u} | ${failsRun ? `${g.limit}${u}` : '–'} | ${verdict} |`;
}

const sample = (list: readonly string[]) => (list.length === 0 ? 'none' : `${list.slice(0, 5).join(', ')}${list.length > 5 ? ', …' : ''}`);

/** The report; `svgFile` and `csvFile` are the plot and the samples beside it. */
export function soakReport(r: SoakResult, svgFile: string, csvFile: string): string {
  const why = failures(r);
  const rssValues = r.samples.map((s) => s.rssMb);
  const fdValues = r.samples.map((s) => s.fds);
  const statuses = [...r.counts.byStatus].sort(([a], [b]) => a.localeCompare(b)).map(([label, n]) => `${label}: ${n.toLocaleString('en')}`);
  return [
    '# Soak',
    '',
    why.length === 0 ? '**PASS**: no 5xx, no lost acknowledged write, flat memory and file descriptors after warm-up.' : `**FAIL**: ${why.join('; ')}.`,
    '',
    'Written by `npm run soak` (bench/soak/): one `plantstore serve` on SQLite with default settings, seeded as the',
    "benchmark's many scenario (each owner with a token and 200 plants at spread-out ids), driven by that scenario's",
    'request mix (bench/many-mix.ts: of every 20 requests 16 GET /plants?limit=10&after=<a seeded id>, 3 POST, 1 DELETE',
    'of a plant the soak created), every request from a random owner. Every second the server\'s RSS (VmRSS) and open',
    'file descriptors are read from /proc. Every 200 to a POST and 204 to a DELETE goes into a model; at the end every',
    "owner's plants are listed (GET /plants?fields=id) and compared with it. The main thread's JavaScript heap (from",
    '/metrics) is sampled beside RSS, to tell a growing heap from growing native memory; the CSV has both.',
    '',
    'It fails on: any 5xx or request without an answer; a status the mix never expects; an acknowledged create not',
    'listed, an acknowledged delete listed again, or a DELETE answered 404 after its create was answered 200; a listed',
    `plant nobody wrote; growth after warm-up. **Growth rule**: the first half of the run is warm-up; the minimum of`,
    `the last quarter may exceed the minimum of the third quarter by at most ${RSS_LIMIT_MB} MiB of RSS and ${FD_LIMIT} file`,
    `descriptors. Minima, because a collected heap saws up and down and a leak lifts its floor. With fewer than`,
    `${MIN_SAMPLES} samples in a quarter (a run under about 20 s) growth is not judged.`,
    '',
    `Run ${r.startedAt.toISOString().replace(/\.\d+Z$/, 'Z')}: ${r.seconds} s, ${r.owners} owners, ${r.connections} connections.`,
    ...r.machine.map((line) => `${line}  `),
    '',
    '## Requests',
    '',
    '| requests | mean req/s | 5xx | no answer | unexpected status |',
    '|---:|---:|---:|---:|---:|',
    `| ${r.counts.requests.toLocaleString('en')} | ${(r.counts.requests / r.seconds).toFixed(0)} | ${r.counts.serverErrors} | ${r.counts.noAnswer} | ${r.counts.unexpected} |`,
    '',
    `Answers: ${statuses.join(', ')}.`,
    '',
    '## Acknowledged writes',
    '',
    '| creates answered 200 | deletes answered 204 | plants listed as expected | lost creates | lost deletes | never written |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${r.acknowledgedCreates.toLocaleString('en')} | ${r.acknowledgedDeletes.toLocaleString('en')} | ${r.check.present.toLocaleString('en')} | ${r.check.lostCreates.length} | ${r.check.lostDeletes.length} | ${r.check.phantoms.length} |`,
    '',
    ...(lostWrites(r.check) + r.check.phantoms.length > 0
      ? [`Lost creates (owner id): ${sample(r.check.lostCreates)}. Lost deletes: ${sample(r.check.lostDeletes)}. Never written: ${sample(r.check.phantoms)}.`, '']
      : []),
    '## Memory and file descriptors',
    '',
    '| | min, 3rd quarter | min, last quarter | growth | limit | verdict |',
    '|---|---:|---:|---:|---:|---|',
    growthRow('RSS', r.rss, 'MiB', 1),
    growthRow('open fds', r.fds, '', 0),
    growthRow('JS heap in use, main thread', r.heap, 'MiB', 1, false),
    '',
    `RSS first sample ${rssValues[0]?.toFixed(1) ?? '–'} MiB, peak ${rssValues.length === 0 ? '–' : Math.max(...rssValues).toFixed(1)} MiB; open fds ${fdValues.length === 0 ? '–' : `${Math.min(...fdValues)}–${Math.max(...fdValues)}`}.`,
    '',
    `![RSS and requests per second over the run; the shaded half is warm-up](${basename(svgFile)})`,
    '',
    `Samples, one a second: [${basename(csvFile)}](${basename(csvFile)}).`,
    '',
  ].join('\n');
}
