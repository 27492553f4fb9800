/**
 * One measured run: the load (one or more load generators at once) and, around it, the CPU the
 * servers and PostgreSQL spent and what other processes took from the machine meanwhile.
 */
import { runLoad, type LoadResult, type LoadSpec } from './load.js';
import { cpuSnapshot, foreignCores } from './processes.js';

export interface Measured {
  result: LoadResult;
  otherCores: number;
  serverCpuUs: number;
  postgresCpuUs: number | undefined;
}

/**
 * Results of load generators that ran side by side, as one: requests and rates add up; the
 * p50 is their request-weighted mean and the p99 the worse of the two (their histograms cannot
 * be merged exactly), so the combined p99 errs on the high side.
 */
export function combine(results: readonly LoadResult[]): LoadResult {
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  return {
    requests,
    rps: results.reduce((sum, r) => sum + r.rps, 0),
    p50Ms: results.reduce((sum, r) => sum + r.p50Ms * r.requests, 0) / requests,
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    maxMs: Math.max(...results.map((r) => r.maxMs)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    socketErrors: results.reduce((sum, r) => sum + r.socketErrors, 0),
  };
}

/** Runs the loads at once against servers `serverPids`; PostgreSQL's CPU counted when `withPostgres`. */
export async function measure(serverPids: readonly number[], loads: readonly LoadSpec[], useWrk: boolean, withPostgres: boolean): Promise<Measured> {
  const before = cpuSnapshot(serverPids);
  const started = performance.now();
  const result = combine(await Promise.all(loads.map((spec) => runLoad(spec, useWrk))));
  const after = cpuSnapshot(serverPids);
  const perRequestUs = (seconds: number) => (seconds * 1e6) / result.requests;
  return {
    result,
    otherCores: foreignCores(before, after, (performance.now() - started) / 1000),
    serverCpuUs: perRequestUs(after.server - before.server),
    postgresCpuUs: withPostgres && after.postgres !== undefined && before.postgres !== undefined ? perRequestUs(after.postgres - before.postgres) : undefined,
  };
}
