/** The command line of `npm run bench`, checked once: a bad option prints one line and the usage. */
import { parseArgs } from 'node:util';
import { LOAD_SCENARIOS, type Scenario } from './load.js';

export const USAGE = `Usage: npm run bench -- [options]
  --quick                 smoke run: short, one repetition, 10 many-owners, no targets
  --seconds <n>           seconds per run, at most 15 (default 10)
  --reps <n>              repetitions of each scenario (default 5)
  --scenarios <list>      any of get,post,mixed,many,list-all (default all)
  --database <url>        postgres://… : plantstore on PostgreSQL, beside the in-memory and the
                          node+pg baselines (the bench works in its own schema plantstore_bench,
                          dropped before and after the run)
  --scale                 with --database: many with one plantstore process, --workers 2, and
                          two instances on one database, side by side (bench/results/scale.md)
  --cpu-prof <dir>        run plantstore under node --cpu-prof, profiles in <dir>
  --help                  this text
Environment: BENCH_PLANTSTORE=<another build's build/src/cli.js> and BENCH_SERVE_ARGS="<flags>"
  run another build or other settings of plantstore in the same harness (use with --seconds).
A full default run writes bench/results/latest.md (SQLite), postgres.md (--database) or
scale.md (--scale); --quick, --cpu-prof and other partial runs write files of their own.`;

const ALL = [...LOAD_SCENARIOS, 'list-all'] as const;

export interface Options {
  quick: boolean;
  seconds: number;
  reps: number;
  loadScenarios: Scenario[];
  listAll: boolean;
  /** postgres://… when the run is on PostgreSQL. */
  database: string | undefined;
  scale: boolean;
  cpuProfDir: string | undefined;
  /** A shorter or partial run than the default: it must not replace the results of a full one. */
  custom: boolean;
}

function usageError(message: string): never {
  process.stderr.write(`bench: ${message}\n${USAGE}\n`);
  process.exit(2);
}

export function parseOptions(argv: readonly string[] = process.argv.slice(2)): Options {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        help: { type: 'boolean', default: false },
        quick: { type: 'boolean', default: false },
        seconds: { type: 'string' },
        reps: { type: 'string' },
        scenarios: { type: 'string', default: ALL.join(',') },
        database: { type: 'string' },
        scale: { type: 'boolean', default: false },
        'cpu-prof': { type: 'string' },
      },
    }).values;
  } catch (error) {
    usageError((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const quick = values.quick;
  const seconds = Math.min(15, Number(values.seconds ?? (quick ? 2 : 10)));
  // Five by default: on a shared host one disturbed repetition must not set a median.
  const reps = Number(values.reps ?? (quick ? 1 : 5));
  if (!(seconds > 0) || !Number.isInteger(reps) || reps < 1) usageError('--seconds must be a positive number and --reps a positive integer');
  const wanted = values.scenarios.split(',');
  const unknown = wanted.filter((name) => !(ALL as readonly string[]).includes(name));
  if (unknown.length > 0) usageError(`unknown scenario ${unknown.join(', ')}`);
  const database = values.database;
  if (database !== undefined && !/^postgres(ql)?:\/\//.test(database)) usageError('--database takes a postgres:// URL (SQLite is the default)');
  if (values.scale && database === undefined) usageError('--scale needs --database postgres://…');
  return {
    quick,
    seconds,
    reps,
    loadScenarios: LOAD_SCENARIOS.filter((s) => wanted.includes(s)),
    listAll: wanted.includes('list-all'),
    database,
    scale: values.scale,
    cpuProfDir: values['cpu-prof'],
    // Another build or other settings must not pass for the default run either.
    custom:
      values.seconds !== undefined ||
      values.reps !== undefined ||
      new Set(wanted).size !== ALL.length ||
      process.env.BENCH_PLANTSTORE !== undefined ||
      process.env.BENCH_SERVE_ARGS !== undefined,
  };
}
