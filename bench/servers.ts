/** Starting the two servers under test as separate processes on 127.0.0.1. */
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../src/settings.js';
import { freePort, startChild, stopChild, waitForHttp } from './processes.js';
import { CLI } from './seed.js';

export interface RunningServer {
  name: 'baseline' | 'plantstore';
  origin: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

function running(name: RunningServer['name'], origin: string, child: ChildProcess): RunningServer {
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  return { name, origin, pid: child.pid, child, stop: () => stopChild(child) };
}

export async function startBaseline(tokens: readonly string[]): Promise<RunningServer> {
  const port = await freePort();
  const script = fileURLToPath(new URL('./baseline-server.js', import.meta.url));
  const child = startChild(process.execPath, [script, String(port)], { env: { ...process.env, BENCH_TOKENS: tokens.join(',') } });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`baseline: ${chunk.toString()}`));
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/`, child);
  return running('baseline', origin, child);
}

/**
 * Starts `plantstore serve` with default settings (only the port and the database given),
 * its JSON log lines going to `logFile`. `nodeArgs` is for profiling (--cpu-prof).
 */
export async function startPlantstore(databaseUrl: string, logFile: string, nodeArgs: readonly string[] = []): Promise<RunningServer> {
  const port = await freePort();
  // Default settings: drop any plantstore setting the caller's environment carries.
  const settingNames = new Set(SETTINGS.map((spec) => spec.env));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !settingNames.has(name)));
  const log = openSync(logFile, 'a');
  const child = startChild(process.execPath, [...nodeArgs, CLI, 'serve', '--port', String(port), '--database-url', databaseUrl], {
    env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/healthz`, child);
  return running('plantstore', origin, child);
}

/** Sums of plantstore's write-batch histogram: batches committed and writes in them. */
export async function writeBatches(origin: string): Promise<{ batches: number; writes: number }> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { batches: value('plantstore_db_write_batch_size_count'), writes: value('plantstore_db_write_batch_size_sum') };
}
