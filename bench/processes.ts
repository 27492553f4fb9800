/**
 * Child processes of the benchmark: every one is tracked and killed when the runner exits,
 * on success, on error and on a signal, so no server or wrk outlives a run.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';

const children = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
}

process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    process.stderr.write(`bench: ${signal}, stopping\n`);
    process.exit(130);
  });
}

/** Spawns a tracked child; it is forgotten once it exits. */
export function startChild(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Stops a child gracefully (SIGTERM), then by force after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(force);
}

/** Runs a command to completion within `timeoutMs`; resolves with its stdout, rejects on failure. */
export async function run(command: string, args: readonly string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<string> {
  const child = startChild(command, args, { env: env ?? process.env });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code, signal] = (await new Promise((resolve) => child.once('close', (...result) => resolve(result)))) as [number | null, string | null];
  clearTimeout(timer);
  if (code !== 0) {
    const why = signal === 'SIGKILL' ? `killed after ${timeoutMs} ms` : `exit ${String(code ?? signal)}`;
    throw new Error(`${command} ${args.join(' ')}: ${why}\n${stderr.slice(-2000)}`);
  }
  return stdout;
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Polls `url` until it answers (any status), failing after `timeoutMs`. */
export async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before answering ${url}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** VmRSS and VmHWM (peak RSS) of a process, in MiB, from /proc/<pid>/status. */
export function memoryOf(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/** CPU seconds from /proc: the whole machine's busy time, the servers', PostgreSQL's, and this runner's reaped children's. */
export interface CpuSnapshot {
  machine: number;
  /** The servers under test, each with its live descendants (cluster workers). */
  server: number;
  /** Every PostgreSQL process on this machine, reaped backends included; undefined when none runs here. */
  postgres: number | undefined;
  self: number;
}

const TICKS = 100; // USER_HZ on Linux

interface ProcessCpu {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime + cutime + cstime, in ticks: its own CPU and that of the children it reaped. */
  ticks: number;
}

function processCpu(pid: number | 'self'): ProcessCpu | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
  const close = text.lastIndexOf(')');
  // After the ')' field 3 is the state, so ppid is at 1 and utime..cstime (fields 14–17) sit at 11–14.
  const fields = text.slice(close + 2).split(' ').map(Number);
  const ticks = fields.slice(11, 15).reduce((a, b) => a + b, 0);
  return { pid: Number(text.slice(0, text.indexOf(' '))), ppid: fields[1] ?? 0, comm: text.slice(text.indexOf('(') + 1, close), ticks };
}

function allProcesses(): ProcessCpu[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => processCpu(Number(name)) ?? []);
}

/** CPU ticks of the processes rooted at `roots` and their live descendants. */
function treeTicks(all: readonly ProcessCpu[], roots: readonly number[]): number {
  const byParent = new Map<number, ProcessCpu[]>();
  for (const proc of all) {
    const siblings = byParent.get(proc.ppid);
    if (siblings === undefined) byParent.set(proc.ppid, [proc]);
    else siblings.push(proc);
  }
  let ticks = 0;
  const visit = (proc: ProcessCpu) => {
    ticks += proc.ticks;
    for (const child of byParent.get(proc.pid) ?? []) visit(child);
  };
  for (const root of all.filter((proc) => roots.includes(proc.pid))) visit(root);
  return ticks;
}

/** Postmasters: processes named postgres whose parent is not one. */
function postmasters(all: readonly ProcessCpu[]): number[] {
  const comm = new Map(all.map((proc) => [proc.pid, proc.comm]));
  return all.filter((proc) => proc.comm === 'postgres' && comm.get(proc.ppid) !== 'postgres').map((proc) => proc.pid);
}

export function cpuSnapshot(serverPids: readonly number[]): CpuSnapshot {
  const cpu = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
  const busy = cpu.slice(0, 8).reduce((sum, ticks, i) => (i === 3 || i === 4 ? sum : sum + ticks), 0);
  const all = allProcesses();
  const pgRoots = postmasters(all);
  return {
    machine: busy / TICKS,
    server: treeTicks(all, serverPids) / TICKS,
    postgres: pgRoots.length === 0 ? undefined : treeTicks(all, pgRoots) / TICKS,
    self: (processCpu('self')?.ticks ?? 0) / TICKS,
  };
}

/**
 * Cores' worth of CPU that neither the servers, PostgreSQL nor the load generator (a reaped
 * child of this runner) used between two snapshots: other work on a shared machine that skews a run.
 */
export function foreignCores(before: CpuSnapshot, after: CpuSnapshot, seconds: number): number {
  const ours = after.server - before.server + (after.self - before.self) + ((after.postgres ?? 0) - (before.postgres ?? 0));
  return Math.max(0, after.machine - before.machine - ours) / seconds;
}
