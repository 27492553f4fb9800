/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof <dir>`): self time by
 * concern (auth, SQLite, logging, metrics, HTTP, JSON, GC …) and the costliest functions.
 *
 * Usage: node build/bench/profile-summary.js <file.cpuprofile> [requests served]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** First match wins: the order puts our own layers before the libraries they call. */
const CONCERNS: readonly [string, (fn: string, url: string) => boolean][] = [
  ['idle', (fn) => fn === '(idle)'],
  ['GC', (fn) => fn === '(garbage collector)'],
  ['logging (pino)', (_, url) => /node_modules\/(pino|sonic-boom|fast-redact|thread-stream|on-exit-leak-free|quick-format)/.test(url)],
  ['metrics (prom-client)', (_, url) => /node_modules\/(prom-client|tdigest|bintrees)/.test(url)],
  ['SQLite (better-sqlite3)', (_, url) => url.includes('better-sqlite3') || url.includes('/store/sqlite/')],
  ['worker messaging', (_, url) => /node:internal\/(worker|per_context\/messageport)/.test(url)],
  ['auth (bearer, token digest)', (_, url) => url.includes('/src/auth/')],
  ['crypto (hash, randomUUID)', (_, url) => url.startsWith('node:internal/crypto')],
  ['JSON body parsing and validation', (_, url) => /\/src\/(util\/strict-json|plants\/|http\/body)/.test(url)],
  ['URL and query parsing', (_, url) => url.startsWith('node:internal/url') || url.includes('/src/http/router')],
  ['app (routing, responses, metrics hooks)', (_, url) => url.includes('/src/')],
  ['node:http', (_, url) => /^node:(_http|http|internal\/http)/.test(url)],
  ['streams and sockets', (_, url) => /^node:(net|stream|internal\/(streams|stream_base|net))/.test(url)],
  ['timers, promises, events', (_, url) => /^node:(events|internal\/(timers|process\/task_queues|async_hooks|events))/.test(url)],
  ['other node internals', (_, url) => url.startsWith('node:')],
  ['native and builtins (no script)', (fn, url) => url === '' && fn !== '(program)'],
  ['program (V8, libuv, syscalls)', (fn) => fn === '(program)'],
  ['other', () => true],
];

const file = process.argv[2];
if (file === undefined) throw new Error('usage: profile-summary <file.cpuprofile> [requests]');
const requests = Number(process.argv[3] ?? NaN);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

const byConcern = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  const concern = CONCERNS.find(([, test]) => test(functionName, url))?.[0] ?? 'other';
  byConcern.set(concern, (byConcern.get(concern) ?? 0) + us);
  const where = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules|build)\//, '$1/')}:${lineNumber + 1}`;
  const key = `${functionName || '(anonymous)'}${where}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
}

const busyUs = totalUs - (byConcern.get('idle') ?? 0);
const line = (name: string, us: number) => {
  const perRequest = Number.isFinite(requests) ? ` | ${(us / requests).toFixed(1)}` : '';
  return `| ${name} | ${(us / 1e6).toFixed(2)} | ${((100 * us) / busyUs).toFixed(1)} %${perRequest} |`;
};
const head = Number.isFinite(requests) ? ' | µs per request |\n|---|---|---|---|' : ' |\n|---|---|---|';
process.stdout.write(`${file}: ${(totalUs / 1e6).toFixed(1)} s sampled, ${(busyUs / 1e6).toFixed(1)} s busy\n\n`);
process.stdout.write(`| concern (self time) | s | share of busy${head}\n`);
for (const [name, us] of [...byConcern].sort((a, b) => b[1] - a[1])) if (name !== 'idle') process.stdout.write(`${line(name, us)}\n`);
process.stdout.write(`\n| function (self time) | s | share of busy${head}\n`);
for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30)) process.stdout.write(`${line(name, us)}\n`);
