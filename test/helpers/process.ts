/**
 * Runs the real `plantstore` command as a child process, for what only a process shows:
 * the CLI, the first-start token, kill -9, signals.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';

/** A port on 127.0.0.1 that was free a moment ago: a server may take it, a connection to it is refused. */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `plantstore <args>` to completion; `wrapper` runs it through another command, such as setpriv. */
export async function runCli(args: string[], env: Record<string, string> = {}, wrapper: string[] = []): Promise<CliResult> {
  const [command = process.execPath, ...rest] = [...wrapper, process.execPath];
  return runToEnd(command, [...rest, CLI, ...args], env);
}

/** A command that has not exited after this long is killed: its test fails rather than hangs. */
const RUN_TO_END_LIMIT_MS = 120_000;

/** Runs a command to its exit, collecting what it printed. */
export async function runToEnd(command: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const limit = setTimeout(() => child.kill('SIGKILL'), RUN_TO_END_LIMIT_MS);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(limit);
  return { code, stdout, stderr };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code and signal. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/**
 * Starts `plantstore serve` on a free port and waits for its "listening" log line. `detached`
 * puts it in a process group of its own, which a test can signal as a whole (as systemd does);
 * `npmStart` starts it as a user does, through `npm start` (without its build step), in a group
 * of its own.
 */
export async function startServerProcess(
  t: TestContext,
  env: Record<string, string>,
  args: string[] = [],
  options: { detached?: boolean; npmStart?: boolean } = {},
): Promise<ServerProcess> {
  const [command, commandArgs] = options.npmStart === true ? ['npm', ['start', '--ignore-scripts', '--silent']] : [process.execPath, [CLI, 'serve', ...args]];
  const detached = (options.detached ?? false) || options.npmStart === true;
  const child = spawn(command, commandArgs, {
    cwd: options.npmStart === true ? ROOT : undefined,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      if (detached && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
      await exited;
    }
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /"url":"(http:[^"]+)".*plantstore is listening/.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exited.then(([code]) => reject(new Error(`plantstore exited with ${code} before listening: ${stderr}`)));
  });
  return { url, child, stdout: () => stdout, stderr: () => stderr, exited };
}
