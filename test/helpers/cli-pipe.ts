/** Runs `plantstore` commands with input on stdin, or two of them joined by a pipe, as a shell would. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI, type CliResult } from './process.js';

function collect(stream: NodeJS.ReadableStream): () => string {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  return () => text;
}

/** `plantstore <args>` with `input` on stdin. */
export async function runCliWithInput(args: string[], env: Record<string, string>, input: string | Buffer): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  child.stdin.end(input);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout: stdout(), stderr: stderr() };
}

/** `plantstore <first> | plantstore <second>`, each with its own environment; the results of both. */
export async function pipeCli(
  first: { args: string[]; env: Record<string, string> },
  second: { args: string[]; env: Record<string, string> },
): Promise<[CliResult, CliResult]> {
  const left = spawn(process.execPath, [CLI, ...first.args], { env: { ...process.env, ...first.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const right = spawn(process.execPath, [CLI, ...second.args], { env: { ...process.env, ...second.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  left.stdout.pipe(right.stdin);
  const leftErr = collect(left.stderr);
  const rightOut = collect(right.stdout);
  const rightErr = collect(right.stderr);
  const [[leftCode], [rightCode]] = (await Promise.all([once(left, 'exit'), once(right, 'exit')])) as [[number | null], [number | null]];
  return [
    { code: leftCode, stdout: '', stderr: leftErr() },
    { code: rightCode, stdout: rightOut(), stderr: rightErr() },
  ];
}
