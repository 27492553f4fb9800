/**
 * Child processes of the benchmark: every one is tracked and killed when the runner exits,
 * on success, on error and on a signal, so no server or wrk outlives a run.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
