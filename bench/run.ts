/**
 * `npm run bench`: plantstore beside bare node:http baselines on this machine, alternating,
 * medians of the repetitions, ratios from the same run; then list-all on a fresh plantstore.
 * On SQLite (the default) the baseline keeps plants in memory; with --database postgres://…
 * plantstore runs on PostgreSQL beside that in-memory baseline and a node+pg one on the same
 * tables; --scale compares one plantstore process, --workers 2 and two instances (scale.ts).
 *
 * Options: see USAGE in options.ts (`npm run bench -- --help`).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasWrk } from './load.js';
import { loadAverage, machineFacts } from './machine.js';
import { parseOptions } from './options.js';
import { listAllTable, resultsTable, samplesTable, summarize, type ServerName } from './report.js';
import { runScale } from './scale.js';
import { baselineMany, baselineTokens, manyUsers, seedSqlite, type Seeded } from './seed.js';
import { benchUrl, dropBenchSchema, postgresFacts, seedPostgres } from './seed-postgres.js';
import { writeManyFile } from './seeded-plants.js';
import { runSideBySide } from './side-by-side.js';
import { POSTGRES_GOALS, SQLITE_GOALS, checkTargets, targetsTable } from './targets.js';

const opts = parseOptions();
const loadBefore = loadAverage();
const { quick, seconds, reps, database } = opts;
const warmupSeconds = quick ? 0 : 2;
const connections = 50;
// The big user is only for list-all; without it seeding is quick.
const bigUserPlants = !opts.listAll || opts.scale ? 0 : quick ? 100_000 : 1_000_000;
const manyOwners = quick ? 10 : 100;
const cpuProfDir = opts.cpuProfDir === undefined ? undefined : resolve(opts.cpuProfDir);
const onPostgres = database !== undefined;
// PostgreSQL's CPU is read from /proc, so only when the server runs on this machine.
const postgresHere = onPostgres && ['127.0.0.1', 'localhost', '[::1]', ''].includes(new URL(database).hostname);

// Only a full default run may replace the results of record; other runs get files of their own.
const stem = opts.scale ? 'scale' : onPostgres ? 'postgres' : 'latest';
const variant = quick ? 'quick' : cpuProfDir !== undefined ? 'cpu-prof' : opts.custom ? 'custom' : '';
const outName = stem === 'latest' && variant !== '' ? `${variant}.md` : `${stem}${variant === '' ? '' : `-${variant}`}.md`;
const outFile = fileURLToPath(new URL(`../../bench/results/${outName}`, import.meta.url));

const useWrk = hasWrk();
if (!useWrk && !quick) {
  process.stderr.write('bench: wrk is not installed. Install it with: apt-get install -y wrk  (Debian/Ubuntu), then run npm run bench again.\n');
  process.exit(2);
}
// On a shared machine the servers and wrk should win the CPU over unrelated work; children
// inherit the runner's priority. Only root may raise it; otherwise the run goes on as it is.
let niced = false;
try {
  setPriority(-10);
  niced = true;
} catch {
  process.stderr.write('bench: could not raise priority (needs root); other work on the machine may skew figures\n');
}
if (!useWrk) process.stderr.write('bench: wrk is not installed (apt-get install -y wrk); --quick falls back to a small node:http load loop.\n');

const serverNames: ServerName[] = onPostgres ? ['baseline', 'node+pg', 'plantstore'] : ['baseline', 'plantstore'];
const references: ServerName[] = onPostgres ? ['baseline', 'node+pg'] : ['baseline'];
// The whole run is bounded: a hung server or load generator cannot keep CI waiting.
const loadRuns = opts.scale ? 3 : opts.loadScenarios.length * serverNames.length;
const plannedSeconds = loadRuns * (reps * (seconds + 3) + warmupSeconds + 3) + (opts.listAll && !opts.scale ? 400 : 0) + 300;
setTimeout(() => {
  process.stderr.write(`bench: gave up after ${plannedSeconds} s\n`);
  process.exit(1);
}, plannedSeconds * 1000).unref();

const say = (text: string) => process.stdout.write(`${text}\n`);
const dir = mkdtempSync(join(tmpdir(), 'plantstore-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const logFile = join(dir, 'plantstore.log');

say(`bench: seeding ${onPostgres ? 'PostgreSQL' : 'SQLite'} (${bigUserPlants.toLocaleString('en')} plants for list-all, ${manyOwners} many-owners, their tokens through the CLI) in ${onPostgres ? 'schema plantstore_bench' : dir}`);
const many = manyUsers(manyOwners);
let storeFact: string;
let durability: string;
let databaseUrl: string;
let seeded: Seeded;
let listAllDatabase: { url: string; token: string };
if (database !== undefined) {
  databaseUrl = benchUrl(database);
  let pg;
  try {
    seeded = await seedPostgres(database, bigUserPlants, many);
    // node+pg works on plantstore's tables, the million plants included: both see the same data.
    listAllDatabase = { url: databaseUrl, token: seeded.tokens.big };
    pg = await postgresFacts(database);
  } catch (error) {
    // The usual cause is an address, a password or a database that is not there: one line says which.
    process.stderr.write(`bench: could not prepare ${new URL(database).host}: ${(error as Error).message.split('\n')[0]}\n`);
    process.exit(2);
  }
  storeFact = `store: PostgreSQL ${pg.version} at ${new URL(database).host}, schema plantstore_bench${postgresHere ? ', on this machine' : ''}`;
  durability = `PostgreSQL, synchronous_commit=${pg.synchronousCommit}: each 200/204 answered after its commit (plantstore and node+pg alike)`;
} else {
  databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
  const sqlite = await seedSqlite(databaseUrl, 0, many);
  seeded = sqlite;
  // The million plants in a database of their own: the load scenarios then run on the data the
  // in-memory baseline holds, not on B-trees made deeper by a user none of them reads.
  const listAllUrl = `sqlite:${join(dir, 'list-all.db')}`;
  listAllDatabase = { url: listAllUrl, token: bigUserPlants === 0 ? '' : (await seedSqlite(listAllUrl, bigUserPlants, [])).tokens.big };
  storeFact = `store: embedded SQLite ${sqlite.sqliteVersion} (better-sqlite3) in ${tmpdir()}`;
  durability = 'SQLite WAL, each 200 answered after the fdatasync of the WAL that holds its commit (group commit)';
}
const psManyFile = join(dir, 'many-plantstore.txt');
writeManyFile(psManyFile, seeded.many);
const baseTokens = baselineTokens();
const baseMany = baselineMany(many);
const baseManyFile = join(dir, 'many-baseline.txt');
writeManyFile(baseManyFile, baseMany);

try {
  if (opts.scale) {
    const lines = await runScale({ databaseUrl, logFile, manyFile: psManyFile, seconds, reps, warmupSeconds, useWrk, postgresHere, say });
    writeReport(
      [
        `# plantstore on PostgreSQL: one process, --workers 2, two instances${quick ? ' (quick smoke run: figures are not meaningful)' : ''}`,
        '',
        `Run ${new Date().toISOString()}. plantstore durability: **${durability}**.`,
        '',
        ...machineFacts(storeFact, useWrk, loadBefore).map((fact) => `- ${fact}`),
        `- plantstore: \`plantstore serve\` with default settings${niced ? ', all at nice −10' : ''}`,
        ...lines,
      ],
      [],
    );
  } else {
    await mainRun();
  }
} finally {
  if (database !== undefined) await dropBenchSchema(database);
}
process.exit(0);

async function mainRun(): Promise<void> {
  const { samples, listAll: listAllSummary } = await runSideBySide({
    ...opts,
    warmupSeconds,
    connections,
    useWrk,
    onPostgres,
    postgresHere,
    databaseUrl,
    listAllDatabase,
    logFile,
    cpuProfDir,
    seeded,
    bigUserPlants,
    psManyFile,
    baseTokens,
    baseManyFile,
    say,
  });
  const rows = summarize(samples, references);
  const targets = quick ? [] : checkTargets(rows, onPostgres ? POSTGRES_GOALS : SQLITE_GOALS, listAllSummary);
  const baselines = onPostgres
    ? 'The in-memory baseline keeps plants in memory only; node+pg is bare node:http doing the same statements on the same PostgreSQL tables through one pg.Pool of plantstore\'s default size, with prepared statements and tokens in a Map.'
    : 'The baseline keeps plants in memory only.';
  writeReport(
    [
      `# plantstore benchmark${onPostgres ? ' on PostgreSQL' : ''}${quick ? ' (quick smoke run: figures are not meaningful)' : ''}`,
      '',
      `Run ${new Date().toISOString()}. plantstore durability: **${durability}**. ${baselines}`,
      '',
      ...machineFacts(storeFact, useWrk, loadBefore).map((fact) => `- ${fact}`),
      `- load: ${useWrk ? 'wrk' : 'node:http fallback loop'}, 1 thread, ${connections} connections, ${seconds} s per run, ${reps} repetition(s), ${serverNames.join(', ')} alternating${warmupSeconds > 0 ? `, after a ${warmupSeconds} s warm-up of each` : ''}${niced ? ', all at nice −10' : ''}; medians reported, ratios are the median of each repetition's pair, non-2xx summed`,
      `- many: ${manyOwners} owners with a token each and 200 plants each (ids spread over ±2^53), every request a random owner: 80 % GET /plants?limit=10&after=<one of its seeded ids>, 15 % POST, 5 % DELETE of a plant the run created`,
      `- plantstore: \`plantstore serve\` with default settings (LOG_LEVEL=info, ${(logBytes() / 1e6).toFixed(0)} MB of JSON log lines written to a file)${cpuProfDir === undefined ? '' : ', **under node --cpu-prof** (slower than normal)'}`,
      '',
      ...(rows.length > 0 ? ['## Throughput and latency', '', ...resultsTable(rows, references), ''] : []),
      ...(listAllSummary === undefined ? [] : ['## list-all', '', ...listAllTable(listAllSummary), '']),
      ...(targets.length > 0 ? ['## Targets', '', ...targetsTable(targets), ''] : []),
      ...(samples.length > 0 ? ['## Every run', '', ...samplesTable(samples), ''] : []),
      '"server CPU" is the server process\'s CPU time (all its threads, from /proc/<pid>/stat) divided by the requests it answered in that run.',
      '',
      ...(postgresHere
        ? ['"PostgreSQL CPU" is the CPU time of every PostgreSQL process on this machine (the postmaster, its backends and background processes, ended backends included) over the run, divided by the requests answered; other clients of the same server would be counted too.', '']
        : []),
      '"other load" is CPU used during the run by processes other than the servers, PostgreSQL and wrk, in cores (from /proc/stat); above ~0.2 the machine was shared and that run is suspect.',
      '',
      ...(onPostgres ? [] : ['"writes per commit" is plantstore_db_write_batch_size from /metrics over that run: how many creates and deletes shared one transaction and one fsync; "ms per commit" is the mean time from a batch leaving the event loop to its sync being heard back there (plantstore_db_write_batch_duration_seconds), which a write waits for at least once.', '']),
    ],
    targets.filter((t) => !t.met).map((t) => t.name),
  );
}

function logBytes(): number {
  try {
    return statSync(logFile).size;
  } catch {
    return 0;
  }
}

function writeReport(lines: string[], unmet: string[]): void {
  const args = process.argv.slice(2).join(' ');
  lines.push(`Reproduce: \`npm run bench${args === '' ? '' : ` -- ${args.replace(/postgres(ql)?:\/\/\S+/, 'postgres://…')}`}\`.`, '');
  writeFileSync(outFile, lines.join('\n'));
  say('');
  say(lines.filter((line) => line.startsWith('|') || line.startsWith('#')).join('\n'));
  say(`\nbench: written to ${outFile}`);
  if (unmet.length > 0) say(`bench: targets not met: ${unmet.join('; ')}`);
}
