/**
 * The side-by-side part of a run: the baselines and plantstore started once, each load
 * scenario run against each in turn (warm-up, then the repetitions), then list-all on a fresh
 * plantstore. Returns the samples; run.ts writes the report.
 */
import { listAll } from './list-all.js';
import type { Scenario } from './load.js';
import { measure } from './measure.js';
import { memoryOf } from './processes.js';
import type { ListAllSummary, Sample, ServerName } from './report.js';
import { seedBaseline, type Seeded, type Tokens } from './seed.js';
import { defaultPoolSize, startBaseline, startPgBaseline, startPlantstore, writeBatches, type RunningServer } from './servers.js';

export interface SideBySideOptions {
  loadScenarios: readonly Scenario[];
  listAll: boolean;
  seconds: number;
  reps: number;
  warmupSeconds: number;
  connections: number;
  quick: boolean;
  useWrk: boolean;
  onPostgres: boolean;
  /** PostgreSQL runs on this machine: its CPU can be read. */
  postgresHere: boolean;
  /** plantstore's (and node+pg's) database, seeded. */
  databaseUrl: string;
  /** The database list-all reads, and the token of its user with `bigUserPlants` plants. */
  listAllDatabase: { url: string; token: string };
  logFile: string;
  cpuProfDir: string | undefined;
  seeded: Seeded;
  bigUserPlants: number;
  psManyFile: string;
  baseTokens: Tokens;
  baseManyFile: string;
  say(text: string): void;
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function runSideBySide(o: SideBySideOptions): Promise<{ samples: Sample[]; listAll: ListAllSummary | undefined }> {
  let nextIdBase = 1e9;
  /** Requests each server answered, warm-up included: the divisor for a profile's per-request cost. */
  const served: Partial<Record<ServerName, number>> = {};
  const samples: Sample[] = [];

  interface Under {
    server: RunningServer;
    token: (scenario: Scenario) => string;
    manyFile: string;
  }
  async function once(under: Under, scenario: Scenario, runSeconds: number, rep: number) {
    const { server } = under;
    const counting = server.name === 'plantstore' && !o.onPostgres && scenario !== 'get';
    const before = counting ? await writeBatches(server.origin) : undefined;
    const idBase = nextIdBase;
    nextIdBase += 1e9; // a fresh id range per run: creates never collide across repetitions
    const load = { scenario, origin: server.origin, token: under.token(scenario), manyFile: under.manyFile, seed: rep + 1, idBase, seconds: runSeconds, connections: o.connections };
    const measured = await measure([server.pid], [load], o.useWrk, o.postgresHere);
    served[server.name] = (served[server.name] ?? 0) + measured.result.requests;
    let writesPerBatch: number | undefined;
    let msPerBatch: number | undefined;
    if (before !== undefined) {
      const after = await writeBatches(server.origin);
      const batches = after.batches - before.batches;
      writesPerBatch = (after.writes - before.writes) / batches;
      msPerBatch = ((after.seconds - before.seconds) * 1000) / batches;
    }
    await pause(500); // let the server settle (GC, log flush) before the next one starts
    return { ...measured, writesPerBatch, msPerBatch };
  }

  if (o.loadScenarios.length > 0) {
    const unders: Under[] = [];
    const baseline = await startBaseline([...Object.values(o.baseTokens)], o.baseManyFile);
    await seedBaseline(baseline.origin, o.baseTokens);
    unders.push({ server: baseline, token: (s) => (s === 'many' ? '' : o.baseTokens[s]), manyFile: o.baseManyFile });
    const psToken = (s: Scenario) => (s === 'many' ? '' : o.seeded.tokens[s]);
    if (o.onPostgres) {
      const owners = new Map([...Object.entries(o.seeded.tokens).map(([user, token]): [string, string] => [token, `bench-${user}`]), ...o.seeded.many.map((owner): [string, string] => [owner.token, owner.user])]);
      unders.push({ server: await startPgBaseline(o.databaseUrl, owners, defaultPoolSize()), token: psToken, manyFile: o.psManyFile });
    }
    const plantstore = await startPlantstore(o.databaseUrl, o.logFile, o.cpuProfDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', o.cpuProfDir]);
    unders.push({ server: plantstore, token: psToken, manyFile: o.psManyFile });
    if (o.warmupSeconds > 0) {
      o.say(`bench: warming up (${o.warmupSeconds} s per scenario and server)`);
      for (const scenario of o.loadScenarios) for (const under of unders) await once(under, scenario, o.warmupSeconds, 0);
    }
    for (let rep = 0; rep < o.reps; rep++) {
      for (const scenario of o.loadScenarios) {
        for (const under of unders) {
          const m = await once(under, scenario, o.seconds, rep);
          samples.push({ rep, scenario, server: under.server.name, ...m });
          const pgCpu = m.postgresCpuUs === undefined ? '' : `  PostgreSQL CPU ${m.postgresCpuUs.toFixed(0)} µs/req`;
          o.say(
            `  rep ${rep + 1}/${o.reps} ${scenario.padEnd(5)} ${under.server.name.padEnd(10)} ${m.result.rps.toFixed(0).padStart(6)} req/s  p50 ${m.result.p50Ms.toFixed(2)} ms  p99 ${m.result.p99Ms.toFixed(2)} ms  non-2xx ${m.result.non2xx + m.result.socketErrors}  server CPU ${m.serverCpuUs.toFixed(0)} µs/req${pgCpu}  other load ${m.otherCores.toFixed(2)} cores`,
          );
        }
      }
    }
    for (const under of unders) await under.server.stop();
    o.say(`bench: requests answered, warm-up included: ${Object.entries(served).map(([name, count]) => `${name} ${count}`).join(', ')}`);
  }

  let listAllSummary: ListAllSummary | undefined;
  if (o.listAll) {
    o.say('bench: list-all on a fresh plantstore');
    const server = await startPlantstore(o.listAllDatabase.url, o.logFile);
    // One small request first, so "idle" includes what every serving process has (writer thread, pool, JIT).
    await (await fetch(`${server.origin}/plants?limit=1`, { headers: { authorization: `Bearer ${o.listAllDatabase.token}` } })).text();
    await pause(1000);
    const idle = memoryOf(server.pid);
    const runs = [];
    for (let i = 0; i < (o.quick ? 1 : 3); i++) {
      const run = await listAll(server.origin, o.listAllDatabase.token, 120_000);
      // A refused or short list would report a tiny first byte and pass.
      if (run.status !== 200 || run.plants !== o.bigUserPlants) throw new Error(`list-all answered ${run.status} with ${run.plants} of ${o.bigUserPlants} plants`);
      runs.push(run);
    }
    const after = memoryOf(server.pid);
    await server.stop();
    listAllSummary = { plantsSeeded: o.bigUserPlants, idleRssMb: idle.rssMb, hwmBeforeMb: idle.hwmMb, hwmAfterMb: after.hwmMb, runs };
  }

  return { samples, listAll: listAllSummary };
}
