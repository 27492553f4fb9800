/** Medians of the samples, the results tables and the Markdown pieces of a run. */
import type { ListAllResult } from './list-all.js';
import type { LoadResult, Scenario } from './load.js';
import type { ServerName } from './servers.js';

export type { ServerName };

export interface Sample {
  rep: number;
  scenario: Scenario;
  server: ServerName;
  result: LoadResult;
  /** plantstore on SQLite only: writes committed per transaction during this run (group commit). */
  writesPerBatch: number | undefined;
  /** The same runs: mean ms from a batch leaving the event loop until its sync is heard back there. */
  msPerBatch: number | undefined;
  /** CPU that other processes used during the run, in cores: a shared machine skews figures. */
  otherCores: number;
  /** CPU time the server process (all threads and workers) spent per request answered, in µs. */
  serverCpuUs: number;
  /** CPU time PostgreSQL's processes spent per request answered, in µs; undefined without PostgreSQL here. */
  postgresCpuUs: number | undefined;
}

export interface Ratio {
  /** Median over repetitions of this run's req/s divided by the reference's in the same repetition. */
  rps: number;
  /** The same for p99 latency. */
  p99: number;
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
  postgresCpuUs: number | undefined;
  /** Against each reference server of the run (the in-memory baseline, and node+pg on PostgreSQL). */
  ratios: Partial<Record<ServerName, Ratio>>;
  writesPerBatch: number | undefined;
  msPerBatch: number | undefined;
}

export interface ListAllSummary {
  plantsSeeded: number;
  idleRssMb: number;
  hwmBeforeMb: number;
  hwmAfterMb: number;
  runs: ListAllResult[];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const finite = (values: readonly (number | undefined)[]) => values.filter((v): v is number => v !== undefined && Number.isFinite(v));

/**
 * One row per scenario and server. Each ratio pairs a run with the reference's run of the same
 * repetition, so both saw the same machine; the median of those pairs is steadier than a ratio
 * of medians on a shared host.
 */
export function summarize(samples: readonly Sample[], references: readonly ServerName[]): Row[] {
  const rows: Row[] = [];
  const scenarios = [...new Set(samples.map((s) => s.scenario))];
  const servers = [...new Set(samples.map((s) => s.server))];
  for (const scenario of scenarios) {
    for (const server of servers) {
      const mine = samples.filter((s) => s.scenario === scenario && s.server === server);
      if (mine.length === 0) continue;
      const ratios: Row['ratios'] = {};
      for (const reference of references) {
        const pairs = mine.flatMap((s) => {
          const ref = samples.find((r) => r.scenario === scenario && r.server === reference && r.rep === s.rep);
          return ref === undefined ? [] : [{ rps: s.result.rps / ref.result.rps, p99: s.result.p99Ms / ref.result.p99Ms }];
        });
        if (pairs.length > 0) ratios[reference] = { rps: median(pairs.map((p) => p.rps)), p99: median(pairs.map((p) => p.p99)) };
      }
      const batches = finite(mine.map((s) => s.writesPerBatch));
      const batchMs = finite(mine.map((s) => s.msPerBatch));
      const pgCpu = finite(mine.map((s) => s.postgresCpuUs));
      rows.push({
        scenario,
        server,
        rps: median(mine.map((s) => s.result.rps)),
        p50Ms: median(mine.map((s) => s.result.p50Ms)),
        p99Ms: median(mine.map((s) => s.result.p99Ms)),
        non2xx: mine.reduce((sum, s) => sum + s.result.non2xx + s.result.socketErrors, 0),
        serverCpuUs: median(mine.map((s) => s.serverCpuUs)),
        postgresCpuUs: pgCpu.length === 0 ? undefined : median(pgCpu),
        ratios,
        writesPerBatch: batches.length === 0 ? undefined : median(batches),
        msPerBatch: batchMs.length === 0 ? undefined : median(batchMs),
      });
    }
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

export function table(header: readonly string[], body: readonly (readonly string[])[]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((cells) => `| ${cells.join(' | ')} |`)];
}

export const num = (value: number | undefined, digits = 0) => (value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '—');

const REFERENCE_LABEL: Record<ServerName, string> = { baseline: 'in-memory baseline', 'node+pg': 'node+pg', plantstore: 'plantstore' };

/** The columns that a run has figures for: PostgreSQL's CPU and write batches only where measured. */
export function resultsTable(rows: readonly Row[], references: readonly ServerName[]): string[] {
  const withPg = rows.some((r) => r.postgresCpuUs !== undefined);
  const withBatches = rows.some((r) => r.writesPerBatch !== undefined);
  return table(
    [
      'scenario',
      'server',
      'req/s',
      'p50 ms',
      'p99 ms',
      'non-2xx',
      ...references.flatMap((ref) => [`req/s ratio to ${REFERENCE_LABEL[ref]}`, `p99 ratio to ${REFERENCE_LABEL[ref]}`]),
      'server CPU µs/req',
      ...(withPg ? ['PostgreSQL CPU µs/req'] : []),
      ...(withBatches ? ['writes per commit', 'ms per commit'] : []),
    ],
    rows.map((r) => [
      r.scenario,
      r.server,
      num(r.rps),
      num(r.p50Ms, 2),
      num(r.p99Ms, 2),
      String(r.non2xx),
      ...references.flatMap((ref) => [num(r.ratios[ref]?.rps, 2), num(r.ratios[ref]?.p99, 2)]),
      num(r.serverCpuUs),
      ...(withPg ? [num(r.postgresCpuUs)] : []),
      ...(withBatches ? [r.writesPerBatch === undefined ? '' : num(r.writesPerBatch, 1), r.msPerBatch === undefined ? '' : num(r.msPerBatch, 2)] : []),
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

export function samplesTable(samples: readonly Sample[]): string[] {
  const withPg = samples.some((s) => s.postgresCpuUs !== undefined);
  const withBatches = samples.some((s) => s.writesPerBatch !== undefined);
  return table(
    [
      'rep',
      'scenario',
      'server',
      'req/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'non-2xx',
      'socket errors',
      'server CPU µs/req',
      ...(withPg ? ['PostgreSQL CPU µs/req'] : []),
      ...(withBatches ? ['writes per commit', 'ms per commit'] : []),
      'other load (cores)',
    ],
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
      ...(withPg ? [num(s.postgresCpuUs)] : []),
      ...(withBatches ? [s.writesPerBatch === undefined ? '' : num(s.writesPerBatch, 1), s.msPerBatch === undefined ? '' : num(s.msPerBatch, 2)] : []),
      num(s.otherCores, 2),
    ]),
  );
}
