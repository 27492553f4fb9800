/**
 * Once a second: the server's RSS and open file descriptors from /proc, its main thread's
 * JavaScript heap from /metrics (to tell a growing heap from growing native memory), and the
 * answers since the last sample.
 */
import { readdirSync } from 'node:fs';
import { memoryOf } from '../processes.js';

export interface SoakSample {
  /** Seconds since the load started. */
  t: number;
  rssMb: number;
  fds: number;
  /** Answers per second since the previous sample. */
  rps: number;
  /** V8 heap of the main thread, used and allocated; NaN when /metrics did not answer in time. */
  heapUsedMb: number;
  heapTotalMb: number;
}

export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** A gauge of Prometheus text in MiB, NaN when absent. */
export function gaugeMb(metrics: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics);
  return match === null ? NaN : Number(match[1]) / 2 ** 20;
}

async function heapOf(origin: string): Promise<{ heapUsedMb: number; heapTotalMb: number }> {
  try {
    const text = await (await fetch(`${origin}/metrics`, { signal: AbortSignal.timeout(900) })).text();
    return { heapUsedMb: gaugeMb(text, 'plantstore_nodejs_heap_size_used_bytes'), heapTotalMb: gaugeMb(text, 'plantstore_nodejs_heap_size_total_bytes') };
  } catch {
    return { heapUsedMb: NaN, heapTotalMb: NaN };
  }
}

/** Samples the server every second until stopped; `answered()` returns the answers since its last call. */
export function startSampler(pid: number, origin: string, answered: () => number): { samples: SoakSample[]; stop(): void } {
  const samples: SoakSample[] = [];
  const started = performance.now();
  let last = started;
  const timer = setInterval(() => {
    const now = performance.now();
    let proc: { t: number; rssMb: number; fds: number; rps: number };
    try {
      proc = { t: (now - started) / 1000, rssMb: memoryOf(pid).rssMb, fds: openFds(pid), rps: answered() / ((now - last) / 1000) };
    } catch {
      return; // the server is gone; the run notices that by its requests failing
    } finally {
      last = now;
    }
    void heapOf(origin).then((heap) => samples.push({ ...proc, ...heap }));
  }, 1000);
  return { samples, stop: () => clearInterval(timer) };
}
