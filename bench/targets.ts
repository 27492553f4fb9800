/** The targets the issues set for the benchmark, each checked against one run's medians. */
import type { Scenario } from './load.js';
import { listAllFigures, table, type ListAllSummary, type Row, type ServerName } from './report.js';

export interface Target {
  issue: number;
  name: string;
  goal: string;
  measured: string;
  met: boolean;
}

interface RatioGoal {
  issue: number;
  scenario: Scenario;
  /** req/s at least `bound` × the reference's, or p99 at most `bound` × the reference's. */
  measure: 'req/s' | 'p99';
  reference: ServerName;
  bound: number;
}

const p99Within = (issue: number, scenario: Scenario, bound: number): RatioGoal => ({ issue, scenario, measure: 'p99', reference: 'baseline', bound });

/** Issue 5 (get, post, mixed) and issue 11 (many), plantstore on SQLite against the in-memory baseline. */
export const SQLITE_GOALS: readonly RatioGoal[] = [
  { issue: 5, scenario: 'get', measure: 'req/s', reference: 'baseline', bound: 0.7 },
  p99Within(5, 'get', 2),
  { issue: 5, scenario: 'post', measure: 'req/s', reference: 'baseline', bound: 0.5 },
  p99Within(5, 'post', 2),
  { issue: 5, scenario: 'mixed', measure: 'req/s', reference: 'baseline', bound: 0.6 },
  p99Within(5, 'mixed', 2),
  { issue: 11, scenario: 'many', measure: 'req/s', reference: 'baseline', bound: 0.7 },
  p99Within(11, 'many', 2),
];

/** Issue 13: plantstore on PostgreSQL against the in-memory and the node+pg baselines. */
export const POSTGRES_GOALS: readonly RatioGoal[] = [
  { issue: 13, scenario: 'many', measure: 'req/s', reference: 'baseline', bound: 0.35 },
  { issue: 13, scenario: 'many', measure: 'req/s', reference: 'node+pg', bound: 0.8 },
  p99Within(13, 'many', 3),
  { issue: 13, scenario: 'post', measure: 'req/s', reference: 'node+pg', bound: 0.8 },
];

const LABEL: Record<ServerName, string> = { baseline: 'in-memory baseline', 'node+pg': 'node+pg', plantstore: 'plantstore' };

export function checkTargets(rows: readonly Row[], goals: readonly RatioGoal[], listAll: ListAllSummary | undefined): Target[] {
  const targets: Target[] = [];
  for (const goal of goals) {
    const ps = rows.find((r) => r.scenario === goal.scenario && r.server === 'plantstore');
    const ref = rows.find((r) => r.scenario === goal.scenario && r.server === goal.reference);
    const ratio = ps?.ratios[goal.reference];
    if (ps === undefined || ref === undefined || ratio === undefined) continue;
    // Met only when both readings of "medians" meet it: the median of the repetitions' paired
    // ratios (steadier on a drifting host) and the ratio of the two medians; and, for
    // throughput, only when every plantstore response was a 2xx.
    const errors = ps.non2xx > 0 ? `; ${ps.non2xx} non-2xx` : '';
    if (goal.measure === 'req/s') {
      const ofMedians = ps.rps / ref.rps;
      targets.push({
        issue: goal.issue,
        name: `${goal.scenario} req/s ratio to ${LABEL[goal.reference]}`,
        goal: `≥ ${goal.bound.toFixed(2)}`,
        measured: `${ratio.rps.toFixed(2)} (median of paired ratios); ${ofMedians.toFixed(2)} (ratio of medians ${ps.rps.toFixed(0)} vs ${ref.rps.toFixed(0)} req/s)${errors}`,
        met: ratio.rps >= goal.bound && ofMedians >= goal.bound && ps.non2xx === 0,
      });
    } else {
      const ofMedians = ps.p99Ms / ref.p99Ms;
      targets.push({
        issue: goal.issue,
        name: `${goal.scenario} p99`,
        goal: `≤ ${goal.bound} × ${LABEL[goal.reference]} p99`,
        measured: `${ratio.p99.toFixed(2)} × (median of paired ratios); ${ofMedians.toFixed(2)} × (ratio of medians ${ps.p99Ms.toFixed(2)} vs ${ref.p99Ms.toFixed(2)} ms)`,
        met: ratio.p99 <= goal.bound && ofMedians <= goal.bound,
      });
    }
  }
  if (listAll !== undefined) {
    const { firstByteMs, growthMb } = listAllFigures(listAll);
    targets.push({ issue: 5, name: 'list-all peak RSS growth over idle', goal: '≤ 50 MB', measured: `${growthMb.toFixed(1)} MB`, met: growthMb <= 50 });
    targets.push({ issue: 5, name: 'list-all first byte', goal: '< 100 ms', measured: `${firstByteMs.toFixed(1)} ms`, met: firstByteMs < 100 });
  }
  return targets;
}

export function targetsTable(targets: readonly Target[]): string[] {
  return table(['target', 'issue', 'goal', 'measured', 'met'], targets.map((t) => [t.name, String(t.issue), t.goal, t.measured, t.met ? 'met' : '**not met**']));
}
