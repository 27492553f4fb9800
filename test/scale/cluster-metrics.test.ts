/** The supervisor's side of /metrics under --workers, in a cluster of its own. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runToEnd } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

const CLUSTER_METRICS = fileURLToPath(new URL('../../src/http/cluster-metrics.js', import.meta.url));

test('a worker that leaves while the supervisor sums the figures for it does not take the supervisor down', async (t) => {
  const script = join(tempDir(t), 'cluster.mjs');
  writeFileSync(
    script,
    `import cluster from 'node:cluster';
import { createServer } from 'node:net';
import { ClusterMetrics } from ${JSON.stringify(CLUSTER_METRICS)};
if (cluster.isPrimary) {
  new ClusterMetrics().start();
  // A worker that listens but never sends its figures: the sum waits for it until the timeout.
  const stalled = cluster.fork({ ROLE: 'stalled' });
  stalled.on('listening', () => {
    const asking = cluster.fork({ ROLE: 'asking' });
    asking.on('exit', () => setTimeout(() => {
      console.log('supervisor alive');
      stalled.kill();
    }, 1500));
  });
} else if (process.env.ROLE === 'asking') {
  // Asks for the sum, then leaves before the answer can come.
  setTimeout(() => process.send({ type: 'plantstore:scrape', id: 1 }, () => setTimeout(() => process.exit(0), 200)), 300);
} else {
  createServer().listen(0);
}
`,
  );
  const { code, stdout, stderr } = await runToEnd(process.execPath, [script]);
  const output = stdout + stderr;
  assert.match(output, /supervisor alive/, output);
  assert.equal(code, 0, output);
});

test('a process that is no cluster worker reads its own registry, even when its parent gave it an IPC channel', async (t) => {
  // As a process manager that forks plantstore does: process.send exists, but no supervisor answers scrapes.
  const script = join(tempDir(t), 'forked.mjs');
  writeFileSync(
    script,
    `import { Counter, Registry } from ${JSON.stringify(import.meta.resolve('prom-client'))};
import { metricsReader } from ${JSON.stringify(CLUSTER_METRICS)};
const registry = new Registry();
new Counter({ name: 'forked_requests_total', help: 'requests', registers: [registry] }).inc(3);
const text = await metricsReader(registry)();
console.log(JSON.stringify({ text }));
process.disconnect();
`,
  );
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, stderr);
  const { text } = JSON.parse(stdout) as { text: string };
  assert.match(text, /^forked_requests_total 3$/m);
});

test('the workers that exited keep their counters in the sum, each once, and their gauges leave with them', async (t) => {
  const script = join(tempDir(t), 'departed.mjs');
  writeFileSync(
    script,
    `import cluster from 'node:cluster';
import { createServer } from 'node:net';
import { Counter, Gauge, Registry } from ${JSON.stringify(import.meta.resolve('prom-client'))};
import { ClusterMetrics, metricsReader } from ${JSON.stringify(CLUSTER_METRICS)};
if (cluster.isPrimary) {
  new ClusterMetrics().start();
  const listening = (worker) => new Promise((resolve) => worker.on('listening', () => resolve(worker)));
  const exited = (worker) => new Promise((resolve) => worker.on('exit', resolve));
  // Two workers that served 1 and 10 requests, and a third, 100, that stays.
  const [a, b] = await Promise.all([listening(cluster.fork({ N: '1' })), listening(cluster.fork({ N: '10' }))]);
  const stays = await listening(cluster.fork({ N: '100' }));
  // A scrape, so that the supervisor has every worker's figures; then the first two exit one after the other.
  await exited(cluster.fork({ ROLE: 'asking' }));
  a.kill();
  await exited(a);
  b.kill();
  await exited(b);
  await exited(cluster.fork({ ROLE: 'asking' }));
  stays.kill();
} else {
  const registry = new Registry();
  const read = metricsReader(registry);
  if (process.env.ROLE === 'asking') {
    const text = await read();
    console.log(JSON.stringify(text.split('\\n').filter((line) => /^test_(requests_total|in_flight) /.test(line))));
    process.exit(0);
  }
  new Counter({ name: 'test_requests_total', help: 'requests', registers: [registry] }).inc(Number(process.env.N));
  new Gauge({ name: 'test_in_flight', help: 'in flight', registers: [registry] }).set(Number(process.env.N));
  createServer().listen(0);
}
`,
  );
  const { code, stdout, stderr } = await runToEnd(process.execPath, [script]);
  assert.equal(code, 0, stderr);
  const scrapes = stdout.trim().split('\n').map((line) => JSON.parse(line) as string[]);
  assert.deepEqual(scrapes, [
    ['test_requests_total 111', 'test_in_flight 111'],
    ['test_requests_total 111', 'test_in_flight 100'],
  ]);
});
