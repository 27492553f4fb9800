/** Once a second: the server's RSS and open file descriptors from /proc, and the answers since the last sample. */
import { readdirSync } from 'node:fs';
import { memoryOf } from '../processes.js';

export interface SoakSample {
  /** Seconds since the load started. */
  t: number;
  rssMb: number;
  fds: number;
  /** Answers per second since the previous sample. */
  rps: number;
}

export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Samples `pid` every second until stopped; `answered()` returns the answers since its last call. */
export function startSampler(pid: number, answered: () => number): { samples: SoakSample[]; stop(): void } {
  const samples: SoakSample[] = [];
  const started = performance.now();
  let last = started;
  const timer = setInterval(() => {
    const now = performance.now();
    try {
      samples.push({ t: (now - started) / 1000, rssMb: memoryOf(pid).rssMb, fds: openFds(pid), rps: answered() / ((now - last) / 1000) });
    } catch {
      // The server is gone; the run notices that by its requests failing.
    }
    last = now;
  }, 1000);
  return { samples, stop: () => clearInterval(timer) };
}
