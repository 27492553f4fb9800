/** The supervisor's side of /metrics under --workers, in a cluster of its own. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
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
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.match(output, /supervisor alive/, output);
  assert.equal(code, 0, output);
});
