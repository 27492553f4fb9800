/**
 * A tiny load loop for --quick runs on machines without wrk: the same scenarios as
 * lua/*.lua over keep-alive node:http connections, and the same BENCH result line.
 * Far weaker than wrk (it shares Node's overheads), so its figures are only a smoke test.
 */
import { Agent, request } from 'node:http';
import { ManyMix } from './many-mix.js';
import { readManyFile } from './seeded-plants.js';

const env = (name: string) => process.env[name] ?? '';
const origin = new URL(env('BENCH_ORIGIN'));
const scenario = env('BENCH_SCENARIO');
const token = env('BENCH_TOKEN');
const base = Number(env('BENCH_ID_BASE'));
const connections = Number(env('BENCH_CONNECTIONS'));
const endAt = performance.now() + Number(env('BENCH_SECONDS')) * 1000;
const agent = new Agent({ keepAlive: true, maxSockets: connections });
// mixed is the many mix with one owner and no seeded ids: its GETs carry no `after`.
const mix =
  scenario === 'many' ? new ManyMix(readManyFile(env('BENCH_MANY_FILE')), base) : scenario === 'mixed' ? new ManyMix([{ token, ids: [] }], base) : undefined;

const latenciesUs: number[] = [];
let posted = 0;
let non2xx = 0;
let socketErrors = 0;

function next(): { method: string; path: string; body?: string; token: string } {
  if (mix !== undefined) {
    const request = mix.next();
    return { ...request, token: mix.tokenOf(request) };
  }
  if (scenario === 'post') {
    posted++;
    return { method: 'POST', path: '/plants', body: JSON.stringify({ id: base + posted, name: `bench plant ${posted}`, tag: 'bench' }), token };
  }
  return { method: 'GET', path: '/plants?limit=10', token };
}

function once(): Promise<void> {
  const { method, path, body, token: bearer } = next();
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: origin.hostname, port: origin.port, method, path, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        latenciesUs.push((performance.now() - started) * 1000);
        if ((res.statusCode ?? 0) > 299) non2xx++;
        resolve();
      });
    });
    req.on('error', () => {
      socketErrors++;
      resolve();
    });
    req.end(body);
  });
}

async function connection(): Promise<void> {
  while (performance.now() < endAt) await once();
}

const started = performance.now();
await Promise.all(Array.from({ length: connections }, connection));
const seconds = (performance.now() - started) / 1000;
latenciesUs.sort((a, b) => a - b);
const at = (p: number) => Math.round(latenciesUs[Math.min(latenciesUs.length - 1, Math.floor((latenciesUs.length * p) / 100))] ?? 0);
const result = { requests: latenciesUs.length, seconds, p50_us: at(50), p99_us: at(99), max_us: at(100), non2xx, socket_errors: socketErrors };
process.stdout.write(`BENCH ${JSON.stringify(result)}\n`);
agent.destroy();
