/**
 * Scale on PostgreSQL (issue 13): the many scenario against one plantstore process, against
 * `--workers 2` (node:cluster, one port) and against two instances on two ports sharing the
 * database, alternating in one run. wrk drives one port, so the two instances each get their
 * own wrk with half the connections, run at the same time and summed (measure.ts: combine);
 * a proxy in front would add a hop that costs CPU on the same cores.
 */
import type { LoadSpec } from './load.js';
import { measure, type Measured } from './measure.js';
import { median, num, table } from './report.js';
import { startPlantstore, type RunningServer } from './servers.js';

export interface ScaleOptions {
  /** postgres://… with the bench schema on the search_path, seeded. */
  databaseUrl: string;
  logFile: string;
  manyFile: string;
  seconds: number;
  reps: number;
  warmupSeconds: number;
  useWrk: boolean;
  postgresHere: boolean;
  say(text: string): void;
}

const CONNECTIONS = 50;

interface Setup {
  name: string;
  servers: RunningServer[];
}

interface ScaleSample extends Measured {
  rep: number;
  setup: string;
}

async function startSetups(o: ScaleOptions): Promise<Setup[]> {
  return [
    { name: 'one process', servers: [await startPlantstore(o.databaseUrl, o.logFile)] },
    { name: '--workers 2', servers: [await startPlantstore(o.databaseUrl, o.logFile, [], ['--workers', '2'])] },
    { name: 'two instances', servers: [await startPlantstore(o.databaseUrl, o.logFile), await startPlantstore(o.databaseUrl, o.logFile)] },
  ];
}

/** Runs the comparison; returns the Markdown tables and notes. */
export async function runScale(o: ScaleOptions): Promise<string[]> {
  const setups = await startSetups(o);
  let nextIdBase = 1e9;
  const samples: ScaleSample[] = [];
  const once = async (setup: Setup, seconds: number, rep: number): Promise<Measured> => {
    const loads: LoadSpec[] = setup.servers.map((server, i) => {
      const idBase = nextIdBase;
      nextIdBase += 1e9; // each load generator creates ids of its own
      return { scenario: 'many', origin: server.origin, token: '', manyFile: o.manyFile, seed: rep * 10 + i + 1, idBase, seconds, connections: CONNECTIONS / setup.servers.length };
    });
    const measured = await measure(
      setup.servers.map((s) => s.pid),
      loads,
      o.useWrk,
      o.postgresHere,
    );
    await new Promise((done) => setTimeout(done, 500));
    return measured;
  };
  try {
    if (o.warmupSeconds > 0) {
      o.say(`bench: warming up (${o.warmupSeconds} s per setup)`);
      for (const setup of setups) await once(setup, o.warmupSeconds, 0);
    }
    for (let rep = 0; rep < o.reps; rep++) {
      for (const setup of setups) {
        const m = await once(setup, o.seconds, rep);
        samples.push({ rep, setup: setup.name, ...m });
        o.say(
          `  rep ${rep + 1}/${o.reps} many ${setup.name.padEnd(13)} ${m.result.rps.toFixed(0).padStart(6)} req/s  p99 ${m.result.p99Ms.toFixed(2)} ms  non-2xx ${m.result.non2xx + m.result.socketErrors}  plantstore CPU ${m.serverCpuUs.toFixed(0)} µs/req  PostgreSQL CPU ${num(m.postgresCpuUs)} µs/req  other load ${m.otherCores.toFixed(2)} cores`,
        );
      }
    }
  } finally {
    for (const setup of setups) for (const server of setup.servers) await server.stop();
  }
  return scaleReport(samples, setups.map((s) => s.name), o);
}

function scaleReport(samples: readonly ScaleSample[], names: readonly string[], o: ScaleOptions): string[] {
  const first = names[0] as string;
  const rows = names.map((name) => {
    const mine = samples.filter((s) => s.setup === name);
    const ratios = mine.flatMap((s) => {
      const ref = samples.find((r) => r.setup === first && r.rep === s.rep);
      return ref === undefined ? [] : [s.result.rps / ref.result.rps];
    });
    const pg = mine.map((s) => s.postgresCpuUs).filter((v): v is number => v !== undefined);
    return [
      name,
      num(median(mine.map((s) => s.result.rps))),
      num(median(mine.map((s) => s.result.p50Ms)), 2),
      num(median(mine.map((s) => s.result.p99Ms)), 2),
      String(mine.reduce((sum, s) => sum + s.result.non2xx + s.result.socketErrors, 0)),
      num(median(ratios), 2),
      num(median(mine.map((s) => s.serverCpuUs))),
      pg.length === 0 ? '—' : num(median(pg)),
      num(median(mine.map((s) => s.otherCores)), 2),
    ];
  });
  return [
    `- many: the owners, plants and mix of the main benchmark; wrk 1 thread, ${CONNECTIONS} connections in all (two instances: two wrk processes of ${CONNECTIONS / 2} at once, summed; their p50 is the request-weighted mean, their p99 the worse of the two), ${o.seconds} s per run, ${o.reps} repetition(s), the three setups alternating${o.warmupSeconds > 0 ? `, after a ${o.warmupSeconds} s warm-up of each` : ''}; medians`,
    '- each plantstore process has the default pool (DATABASE_POOL_SIZE), so --workers 2 and two instances hold twice the connections of one process',
    '',
    '## many on PostgreSQL',
    '',
    ...table(['setup', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'req/s ratio to one process', 'plantstore CPU µs/req', 'PostgreSQL CPU µs/req', 'other load (cores)'], rows),
    '',
    '"plantstore CPU" counts every plantstore process of the setup (the supervisor and its workers, or both instances); "PostgreSQL CPU" every PostgreSQL process on this machine; both per request answered. The ratio pairs each run with the one-process run of the same repetition.',
    '',
    '## Every run',
    '',
    ...table(
      ['rep', 'setup', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'plantstore CPU µs/req', 'PostgreSQL CPU µs/req', 'other load (cores)'],
      samples.map((s) => [
        String(s.rep + 1),
        s.setup,
        num(s.result.rps),
        num(s.result.p50Ms, 2),
        num(s.result.p99Ms, 2),
        num(s.result.maxMs, 1),
        String(s.result.non2xx + s.result.socketErrors),
        num(s.serverCpuUs),
        num(s.postgresCpuUs),
        num(s.otherCores, 2),
      ]),
    ),
    '',
  ];
}
