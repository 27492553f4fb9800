/** The facts about the machine that belong beside every figure. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release } from 'node:os';

export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

/** `store` describes the database; `loadBefore` is loadAverage() taken before the run started. */
export function machineFacts(store: string, useWrk: boolean, loadBefore: string): string[] {
  const cpu = cpus();
  const wrk = useWrk ? spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]?.split(' Copyright')[0] : undefined;
  return [
    `machine: ${cpu.length} cores, ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Linux ${release()}, load average before the run ${loadBefore}`,
    `Node ${process.version}; ${store}`,
    ...(wrk === undefined ? [] : [`load generator: ${wrk}`]),
  ];
}
