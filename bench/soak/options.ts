/** The command line of `npm run soak`, checked once. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const USAGE = `Usage: npm run soak -- [options]
  --duration <time>     how long the load runs: <n>s, <n>m or <n> seconds (default 10m)
  --report <file>       the Markdown report; the plot and the samples go beside it as
                        <file without .md>.svg and .csv (default docs/soak.md)
  --owners <n>          many-scenario owners, each with a token and 200 seeded plants (default 100)
  --connections <n>     concurrent keep-alive connections (default 50)
  --help                this text`;

export interface SoakOptions {
  seconds: number;
  report: string;
  owners: number;
  connections: number;
}

export class UsageError extends Error {}

export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m)?$/.exec(text);
  if (match === null) throw new UsageError(`--duration ${text}: expected <n>s, <n>m or a number of seconds`);
  const seconds = Number(match[1]) * (match[2] === 'm' ? 60 : 1);
  if (seconds < 1) throw new UsageError('--duration must be at least 1 s');
  return seconds;
}

function positiveInteger(name: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1) throw new UsageError(`--${name} ${text}: expected a positive integer`);
  return n;
}

/** The options, or `help` when --help was asked for; throws UsageError on a bad command line. */
export function parseSoakOptions(argv: readonly string[]): SoakOptions | 'help' {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        help: { type: 'boolean', default: false },
        duration: { type: 'string', default: '10m' },
        report: { type: 'string', default: 'docs/soak.md' },
        owners: { type: 'string', default: '100' },
        connections: { type: 'string', default: '50' },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  if (!values.report.endsWith('.md')) throw new UsageError(`--report ${values.report}: expected a .md file`);
  return {
    seconds: parseDuration(values.duration),
    report: resolve(values.report),
    owners: positiveInteger('owners', values.owners),
    connections: positiveInteger('connections', values.connections),
  };
}
