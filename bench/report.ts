/** Medians, the results table, the targets of issue 5, and the Markdown file. */
import type { ListAllResult } from './list-all.js';
import type { LoadResult, Scenario } from './load.js';

export type ServerName = 'baseline' | 'plantstore';

export const DURABILITY = "SQLite WAL, each 200 answered after the fdatasync of the WAL that holds its commit (group commit)";

export interface Sample {
  rep: number;
  scenario: Scenario;
  server: ServerName;
  result: LoadResult;
  /** plantstore only: writes committed per transaction during this run (group commit). */
  writesPerBatch: number | undefined;
  /** CPU that other processes used during the run, in cores: a shared machine skews figures. */
  otherCores: number;
  /** CPU time the server process (all threads) spent per request answered, in µs. */
  serverCpuUs: number;
}

export interface Row {
  scenario: Scenario;
  server: ServerName;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Summed over the repetitions; socket errors included. */
  non2xx: number;
  serverCpuUs: number;
  /** Median over repetitions of this run's req/s divided by the baseline's in the same repetition. */
  ratio: number;
  /** The same for p99 latency. */
  p99Ratio: number;
  writesPerBatch: number | undefined;
}

export interface ListAllSummary {
  plantsSeeded: number;
  idleRssMb: number;
  hwmBeforeMb: number;
  hwmAfterMb: number;
  runs: ListAllResult[];
}

export interface Target {
  name: string;
  goal: string;
  measured: string;
  met: boolean;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function summarize(samples: readonly Sample[]): Row[] {
  const rows: Row[] = [];
  for (const scenario of ['get', 'post', 'mixed'] as const) {
    for (const server of ['baseline', 'plantstore'] as const) {
      const mine = samples.filter((s) => s.scenario === scenario && s.server === server);
      if (mine.length === 0) continue;
      const batches = mine.map((s) => s.writesPerBatch).filter((v): v is number => v !== undefined && Number.isFinite(v));
      rows.push({
        scenario,
        server,
        rps: median(mine.map((s) => s.result.rps)),
        p50Ms: median(mine.map((s) => s.result.p50Ms)),
        p99Ms: median(mine.map((s) => s.result.p99Ms)),
        non2xx: mine.reduce((sum, s) => sum + s.result.non2xx + s.result.socketErrors, 0),
        serverCpuUs: median(mine.map((s) => s.serverCpuUs)),
        ratio: NaN,
        p99Ratio: NaN,
        writesPerBatch: batches.length === 0 ? undefined : median(batches),
      });
    }
  }
  // Each ratio pairs a plantstore run with the baseline run just before it, so both saw the
  // same machine; the median of those pairs is steadier than a ratio of medians on a shared host.
  for (const row of rows) {
    const pairs = samples.filter((s) => s.scenario === row.scenario && s.server === 'plantstore');
    const ratios = pairs.flatMap((ps) => {
      const base = samples.find((s) => s.scenario === ps.scenario && s.server === 'baseline' && s.rep === ps.rep);
      return base === undefined ? [] : [{ rps: ps.result.rps / base.result.rps, p99: ps.result.p99Ms / base.result.p99Ms }];
    });
    row.ratio = row.server === 'baseline' ? 1 : median(ratios.map((r) => r.rps));
    row.p99Ratio = row.server === 'baseline' ? 1 : median(ratios.map((r) => r.p99));
  }
  return rows;
}

export function listAllFigures(summary: ListAllSummary) {
  return {
    firstByteMs: median(summary.runs.map((r) => r.firstByteMs)),
    totalMs: median(summary.runs.map((r) => r.totalMs)),
    growthMb: summary.hwmAfterMb - summary.idleRssMb,
  };
}

export function checkTargets(rows: readonly Row[], listAll: ListAllSummary | undefined): Target[] {
  const targets: Target[] = [];
  const goals: Record<Scenario, number> = { get: 0.7, post: 0.5, mixed: 0.6 };
  for (const scenario of ['get', 'post', 'mixed'] as const) {
    const ps = rows.find((r) => r.scenario === scenario && r.server === 'plantstore');
    const base = rows.find((r) => r.scenario === scenario && r.server === 'baseline');
    if (ps === undefined || base === undefined) continue;
    targets.push({ name: `${scenario} req/s ratio`, goal: `≥ ${goals[scenario].toFixed(2)}`, measured: ps.ratio.toFixed(2), met: ps.ratio >= goals[scenario] });
    targets.push({
      name: `${scenario} p99`,
      goal: '≤ 2 × baseline p99',
      measured: `${ps.p99Ratio.toFixed(2)} × (medians ${ps.p99Ms.toFixed(2)} ms vs ${base.p99Ms.toFixed(2)} ms)`,
      met: ps.p99Ratio <= 2,
    });
  }
  if (listAll !== undefined) {
    const { firstByteMs, growthMb } = listAllFigures(listAll);
    targets.push({ name: 'list-all peak RSS growth over idle', goal: '≤ 50 MB', measured: `${growthMb.toFixed(1)} MB`, met: growthMb <= 50 });
    targets.push({ name: 'list-all first byte', goal: '< 100 ms', measured: `${firstByteMs.toFixed(1)} ms`, met: firstByteMs < 100 });
  }
  return targets;
}

function table(header: readonly string[], body: readonly (readonly string[])[]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((cells) => `| ${cells.join(' | ')} |`)];
}

const num = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

export function resultsTable(rows: readonly Row[]): string[] {
  return table(
    ['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'req/s ratio to baseline', 'p99 ratio', 'server CPU µs/req', 'writes per commit'],
    rows.map((r) => [
      r.scenario,
      r.server,
      num(r.rps),
      num(r.p50Ms, 2),
      num(r.p99Ms, 2),
      String(r.non2xx),
      r.server === 'baseline' ? '1.00' : num(r.ratio, 2),
      r.server === 'baseline' ? '1.00' : num(r.p99Ratio, 2),
      num(r.serverCpuUs),
      r.writesPerBatch === undefined ? '' : num(r.writesPerBatch, 1),
    ]),
  );
}

export function listAllTable(summary: ListAllSummary): string[] {
  const { firstByteMs, totalMs, growthMb } = listAllFigures(summary);
  const last = summary.runs.at(-1);
  return table(
    ['scenario', 'server', 'plants returned', 'first byte ms', 'total ms', 'idle RSS MB', 'VmHWM before MB', 'VmHWM after MB', 'growth MB'],
    [
      [
        'list-all',
        'plantstore',
        `${last?.plants ?? 0} of ${summary.plantsSeeded}`,
        num(firstByteMs, 1),
        num(totalMs),
        num(summary.idleRssMb, 1),
        num(summary.hwmBeforeMb, 1),
        num(summary.hwmAfterMb, 1),
        num(growthMb, 1),
      ],
    ],
  );
}

export function targetsTable(targets: readonly Target[]): string[] {
  return table(['target (issue 5)', 'goal', 'measured', 'met'], targets.map((t) => [t.name, t.goal, t.measured, t.met ? 'met' : '**not met**']));
}

export function samplesTable(samples: readonly Sample[]): string[] {
  return table(
    ['rep', 'scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'socket errors', 'server CPU µs/req', 'writes per commit', 'other load (cores)'],
    samples.map((s) => [
      String(s.rep + 1),
      s.scenario,
      s.server,
      num(s.result.rps),
      num(s.result.p50Ms, 2),
      num(s.result.p99Ms, 2),
      num(s.result.maxMs, 1),
      String(s.result.non2xx),
      String(s.result.socketErrors),
      num(s.serverCpuUs),
      s.writesPerBatch === undefined ? '' : num(s.writesPerBatch, 1),
      num(s.otherCores, 2),
    ]),
  );
}
