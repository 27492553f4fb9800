/**
 * `npm run soak`: the benchmark's many-owner load against one plantstore on SQLite for a
 * while, watching its memory and file descriptors and keeping every acknowledged write, then
 * checking the store against them. Writes a report with a plot and the samples; exits 1 when
 * the soak failed. Options: see USAGE in options.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadAverage, machineFacts } from '../machine.js';
import { ManyMix } from '../many-mix.js';
import { startPlantstore } from '../servers.js';
import { manyUsers, seedSqlite } from '../seed.js';
import { SoakDriver } from './driver.js';
import { FD_LIMIT, RSS_LIMIT_MB, growthAfterWarmUp } from './growth.js';
import { WriteModel } from './model.js';
import { USAGE, UsageError, parseSoakOptions, type SoakOptions } from './options.js';
import { soakPlot } from './plot.js';
import { failures, samplesCsv, soakReport } from './report.js';
import { startSampler } from './sampler.js';

let parsed: SoakOptions | 'help';
try {
  parsed = parseSoakOptions(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`soak: ${error.message}\n${USAGE}\n`);
  process.exit(2);
}
if (parsed === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const opts = parsed;
const say = (text: string) => process.stdout.write(`${text}\n`);
const loadBefore = loadAverage();

// Bounded: seeding, the load, the final listing; a hung server cannot keep CI waiting.
setTimeout(() => {
  process.stderr.write('soak: gave up: the run took far longer than its duration\n');
  process.exit(1);
}, (opts.seconds + 300) * 1000).unref();

const dir = mkdtempSync(join(tmpdir(), 'plantstore-soak-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const databaseUrl = `sqlite:${join(dir, 'soak.db')}`;

say(`soak: seeding SQLite in ${dir}: ${opts.owners} owners with 200 plants each, their tokens through the CLI`);
const seeded = await seedSqlite(databaseUrl, 0, manyUsers(opts.owners));
const server = await startPlantstore(databaseUrl, join(dir, 'plantstore.log'));
let broken: string | undefined;
const exitedEarly = (code: number | null, signal: string | null) => (broken ??= `the server exited during the run (${String(code ?? signal)})`);
server.child.once('exit', exitedEarly);

const model = new WriteModel();
for (const owner of seeded.many) model.seeded(owner.user, owner.ids);
const driver = new SoakDriver(server.origin, new ManyMix(seeded.many, 0), seeded.many.map((owner) => owner.user), model, opts.connections);

say(`soak: ${opts.seconds} s of the many mix over ${opts.connections} connections against ${server.origin} (pid ${server.pid})`);
const startedAt = new Date();
const sampler = startSampler(server.pid, server.origin, () => driver.takeAnswered());
const progress = setInterval(() => {
  const last = sampler.samples.at(-1);
  if (last !== undefined) say(`soak: ${last.t.toFixed(0)} s  ${last.rps.toFixed(0)} req/s  RSS ${last.rssMb.toFixed(1)} MiB  fds ${last.fds}  5xx ${driver.counts.serverErrors}`);
}, 30_000);
await driver.run(opts.connections, performance.now() + opts.seconds * 1000);
sampler.stop();
clearInterval(progress);

say("soak: listing every owner's plants against the model");
const listed = new Map<string, number[]>();
try {
  for (const owner of seeded.many) {
    const res = await fetch(`${server.origin}/plants?fields=id`, { headers: { authorization: `Bearer ${owner.token}` } });
    if (res.status !== 200) throw new Error(`GET /plants answered ${res.status}`);
    listed.set(owner.user, ((await res.json()) as { id: number }[]).map((plant) => plant.id));
  }
} catch (error) {
  broken ??= `listing the plants failed: ${(error as Error).message}`;
}
server.child.off('exit', exitedEarly);
await server.stop();

const samples = sampler.samples.sort((a, b) => a.t - b.t);
const result = {
  startedAt,
  seconds: opts.seconds,
  owners: opts.owners,
  connections: opts.connections,
  machine: machineFacts(`store: embedded SQLite ${seeded.sqliteVersion} (better-sqlite3), default settings`, false, loadBefore),
  counts: driver.counts,
  acknowledgedCreates: model.acknowledgedCreates,
  acknowledgedDeletes: model.acknowledgedDeletes,
  check: model.check(listed),
  rss: growthAfterWarmUp(samples.map((s) => ({ t: s.t, value: s.rssMb })), opts.seconds, RSS_LIMIT_MB),
  fds: growthAfterWarmUp(samples.map((s) => ({ t: s.t, value: s.fds })), opts.seconds, FD_LIMIT),
  heap: growthAfterWarmUp(samples.filter((s) => !Number.isNaN(s.heapUsedMb)).map((s) => ({ t: s.t, value: s.heapUsedMb })), opts.seconds, RSS_LIMIT_MB),
  samples,
  ...(broken === undefined ? {} : { broken }),
};

const svgFile = opts.report.replace(/\.md$/, '.svg');
const csvFile = opts.report.replace(/\.md$/, '.csv');
mkdirSync(dirname(opts.report), { recursive: true });
writeFileSync(svgFile, soakPlot(samples, opts.seconds, `${opts.seconds} s, ${opts.owners} owners, ${opts.connections} connections; shaded: warm-up; dashed: last quarter`));
writeFileSync(csvFile, samplesCsv(samples));
writeFileSync(opts.report, soakReport(result, svgFile, csvFile));

const why = failures(result);
say(`soak: ${result.counts.requests} requests, ${result.acknowledgedCreates} creates and ${result.acknowledgedDeletes} deletes acknowledged; report in ${opts.report}`);
if (why.length > 0) {
  process.stderr.write(`soak: FAIL: ${why.join('; ')}\n`);
  process.exit(1);
}
say('soak: PASS');
