/** The facts about the machine that belong beside every figure. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, tmpdir } from 'node:os';

export function machineFacts(sqliteVersion: string, useWrk: boolean): string[] {
  const cpu = cpus();
  const wrk = useWrk ? spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]?.split(' Copyright')[0] : undefined;
  let load = '';
  try {
    load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    load = 'unknown';
  }
  return [
    `machine: ${cpu.length} cores, ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Linux ${release()}, load average before the run ${load}`,
    `Node ${process.version}; store: embedded SQLite ${sqliteVersion} (better-sqlite3) in ${tmpdir()}`,
    ...(wrk === undefined ? [] : [`load generator: ${wrk}`]),
  ];
}
