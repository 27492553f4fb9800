/**
 * Runs one load scenario as a separate process and reads its result line: Debian's wrk
 * (1 thread, so the server keeps the other core), or, only when allowed (--quick), the tiny
 * node:http loop in node-load.ts.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { run } from './processes.js';

export const LOAD_SCENARIOS = ['get', 'post', 'mixed', 'many'] as const;
export type Scenario = (typeof LOAD_SCENARIOS)[number];

export interface LoadSpec {
  scenario: Scenario;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** The scenario's token; many reads its owners' tokens from `manyFile` instead. */
  token: string;
  /** The many-owner file (seeded-plants.ts) of this server's tokens. */
  manyFile: string;
  /** Seeds the random choices of many: the same in both servers' runs of one repetition. */
  seed: number;
  /** Ids created by this run are idBase + 1, idBase + 2, … */
  idBase: number;
  seconds: number;
  connections: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  socketErrors: number;
}

const LUA_DIR = fileURLToPath(new URL('../../bench/lua', import.meta.url));

export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/** Parses the `BENCH {…}` line that lua/report.lua and node-load.ts print. */
export function parseResult(output: string): LoadResult {
  const line = output.split('\n').find((candidate) => candidate.startsWith('BENCH '));
  if (line === undefined) throw new Error(`the load generator printed no BENCH line:\n${output.slice(-2000)}`);
  const raw = JSON.parse(line.slice('BENCH '.length)) as Record<string, number>;
  const field = (name: string) => {
    const value = raw[name];
    if (typeof value !== 'number') throw new Error(`BENCH line lacks ${name}: ${line}`);
    return value;
  };
  return {
    requests: field('requests'),
    rps: field('requests') / field('seconds'),
    p50Ms: field('p50_us') / 1000,
    p99Ms: field('p99_us') / 1000,
    maxMs: field('max_us') / 1000,
    non2xx: field('non2xx'),
    socketErrors: field('socket_errors'),
  };
}

export async function runLoad(spec: LoadSpec, useWrk: boolean): Promise<LoadResult> {
  const env = {
    ...process.env,
    BENCH_LUA_DIR: LUA_DIR,
    BENCH_TOKEN: spec.token,
    BENCH_ID_BASE: String(spec.idBase),
    BENCH_MANY_FILE: spec.manyFile,
    BENCH_SEED: String(spec.seed),
    BENCH_SCENARIO: spec.scenario,
    BENCH_ORIGIN: spec.origin,
    BENCH_SECONDS: String(spec.seconds),
    BENCH_CONNECTIONS: String(spec.connections),
  };
  // Bounded: the scenario's own length plus time to connect and report, then SIGKILL.
  const timeoutMs = spec.seconds * 1000 + 15_000;
  const output = useWrk
    ? await run('wrk', ['-t1', `-c${spec.connections}`, `-d${spec.seconds}s`, '--timeout', '5s', '-s', `${LUA_DIR}/${spec.scenario}.lua`, spec.origin], timeoutMs, env)
    : await run(process.execPath, [fileURLToPath(new URL('./node-load.js', import.meta.url))], timeoutMs, env);
  return parseResult(output);
}
