/** Starting the two servers under test as separate processes on 127.0.0.1. */
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../src/settings.js';
import { freePort, startChild, stopChild, waitForHttp } from './processes.js';
import { CLI } from './seed.js';

/** baseline: in memory; node+pg: bare node:http on the same PostgreSQL tables; plantstore itself. */
export type ServerName = 'baseline' | 'node+pg' | 'plantstore';

export interface RunningServer {
  name: ServerName;
  origin: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

function running(name: RunningServer['name'], origin: string, child: ChildProcess): RunningServer {
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  return { name, origin, pid: child.pid, child, stop: () => stopChild(child) };
}

async function startScript(name: ServerName, script: string, env: NodeJS.ProcessEnv): Promise<RunningServer> {
  const port = await freePort();
  const path = fileURLToPath(new URL(script, import.meta.url));
  const child = startChild(process.execPath, [path, String(port)], { env: { ...process.env, ...env } });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`${name}: ${chunk.toString()}`));
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/`, child);
  return running(name, origin, child);
}

/** The in-memory baseline with these tokens, the many owners' plants already in it. */
export function startBaseline(tokens: readonly string[], manyFile: string): Promise<RunningServer> {
  return startScript('baseline', './baseline-server.js', { BENCH_TOKENS: tokens.join(','), BENCH_MANY_FILE: manyFile });
}

/** The node+pg baseline on `databaseUrl`, each token acting for its owner. */
export function startPgBaseline(databaseUrl: string, owners: ReadonlyMap<string, string>, poolSize: number): Promise<RunningServer> {
  return startScript('node+pg', './pg-baseline-server.js', {
    BENCH_DATABASE_URL: databaseUrl,
    BENCH_OWNERS: [...owners].map(([token, owner]) => `${token}=${owner}`).join(','),
    BENCH_POOL_SIZE: String(poolSize),
  });
}

/** plantstore's default PostgreSQL pool size, which the node+pg baseline matches. */
export function defaultPoolSize(): number {
  return Number(SETTINGS.find((spec) => spec.env === 'DATABASE_POOL_SIZE')?.default ?? 10);
}

/**
 * Starts `plantstore serve` with default settings (only the port and the database given, and
 * `serveArgs` such as --workers), its JSON log lines going to `logFile`. `nodeArgs` is for
 * profiling (--cpu-prof). BENCH_PLANTSTORE names another build's cli.js and BENCH_SERVE_ARGS
 * adds flags, to compare builds or settings with the same harness.
 */
export async function startPlantstore(databaseUrl: string, logFile: string, nodeArgs: readonly string[] = [], serveArgs: readonly string[] = []): Promise<RunningServer> {
  const port = await freePort();
  // Default settings: drop any plantstore setting the caller's environment carries.
  const settingNames = new Set(SETTINGS.flatMap((spec) => [spec.env, `${spec.env}_FILE`]));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !settingNames.has(name)));
  const log = openSync(logFile, 'a');
  const cli = process.env.BENCH_PLANTSTORE ?? CLI;
  const extra = (process.env.BENCH_SERVE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const child = startChild(process.execPath, [...nodeArgs, cli, 'serve', '--port', String(port), '--database-url', databaseUrl, ...serveArgs, ...extra], {
    env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/healthz`, child);
  return running('plantstore', origin, child);
}

/** Sums of plantstore's write-batch histograms: batches committed, writes in them, seconds they took. */
export async function writeBatches(origin: string): Promise<{ batches: number; writes: number; seconds: number }> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    batches: value('plantstore_db_write_batch_size_count'),
    writes: value('plantstore_db_write_batch_size_sum'),
    seconds: value('plantstore_db_write_batch_duration_seconds_sum'),
  };
}
