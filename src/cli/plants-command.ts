/**
 * `plantstore plants …`: a running plantstore's plants from the terminal, through
 * plantstore/client. Exit 0 on success, 1 when the service refused something, 2 on bad usage;
 * every failure is one line on stderr (commander's own usage errors through cli.ts and usage.ts).
 */
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { PlantStoreClient, type Plant } from '../client/index.js';
import { parseInt64, parseNonNegativeInt32 } from '../plants/int64.js';
import { describeFailure } from './cli-errors.js';
import { formatOfPath, readPlants, type ImportFormat } from './plant-input.js';
import { CSV_HEADER, plantCsv, plantJson, plantTable } from './plants-output.js';
import { nodeFetch } from './node-fetch.js';
import { runImport } from './run-import.js';
import { USAGE_EXIT_CODE, UsageError } from './usage.js';

const DEFAULT_URL = 'http://127.0.0.1:8080';

interface GlobalOptions {
  url?: string;
  token?: string;
}

function plantId(text: string): bigint {
  const id = parseInt64(text);
  if (id === undefined) throw new UsageError(`"${text}" is not a plant id: a signed 64-bit integer in decimal digits`);
  return id;
}

function connect(command: Command, requestsInFlight: number): { client: PlantStoreClient; url: string } {
  const options = command.optsWithGlobals<GlobalOptions>();
  const url = options.url ?? process.env.PLANTSTORE_URL ?? DEFAULT_URL;
  const token = options.token ?? process.env.PLANTSTORE_TOKEN ?? '';
  if (token === '') throw new UsageError('no token: pass --token or set PLANTSTORE_TOKEN (plantstore token create --user <name> makes one)');
  try {
    return { client: new PlantStoreClient({ baseUrl: url, token, fetch: nodeFetch({ maxSockets: requestsInFlight }) }), url };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Writes to stdout, waiting when the reader is slower than we are. */
async function output(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

/** Runs a command's work (which may return an exit code); a failure becomes one line on stderr and the exit code. */
async function run(command: Command, work: (client: PlantStoreClient, url: string) => Promise<unknown>, requestsInFlight = 1): Promise<void> {
  let url = DEFAULT_URL;
  try {
    const connection = connect(command, requestsInFlight);
    url = connection.url;
    const code = await work(connection.client, url);
    if (typeof code === 'number') process.exitCode = code;
  } catch (error) {
    const { line, exitCode } = describeFailure(error, url);
    process.stderr.write(`plantstore: ${line}\n`);
    process.exitCode = exitCode;
  }
}

function usageFailure(message: string): void {
  process.stderr.write(`plantstore: ${message}\n`);
  process.exitCode = USAGE_EXIT_CODE;
}

async function printPlant(plant: Plant, json: boolean | undefined): Promise<void> {
  await output(json === true ? `${plantJson(plant)}\n` : plantTable([plant]));
}

/** The `plants` command, with its subcommands. */
export function plantsCommand(): Command {
  const plants = new Command('plants')
    .description('manage the plants of a running plantstore over its HTTP API')
    .option('--url <url>', `the service's address [env PLANTSTORE_URL, default ${DEFAULT_URL}]`)
    .option('--token <token>', 'an API token or JWT [env PLANTSTORE_TOKEN]');

  plants
    .command('add')
    .description('create a plant (repeating an identical create is safe)')
    .argument('<id>', 'a signed 64-bit integer')
    .argument('<name>')
    .option('--tag <tag>')
    .option('--json', 'print the plant as JSON')
    .action((id: string, name: string, options: { tag?: string; json?: boolean }, command: Command) =>
      run(command, async (client) => printPlant(await client.createPlant({ id: plantId(id), name, tag: options.tag }), options.json)),
    );

  plants
    .command('get')
    .description('show one plant')
    .argument('<id>')
    .option('--json', 'print the plant as JSON')
    .action((id: string, options: { json?: boolean }, command: Command) =>
      run(command, async (client) => printPlant(await client.getPlant(plantId(id)), options.json)),
    );

  plants
    .command('list')
    .description('list plants in id order as a table with their ids (all of them unless --limit)')
    .option('--limit <n>', 'show at most n plants')
    .option('--after <id>', 'start after this id')
    .option('--tag <tag>', 'only plants with exactly this tag')
    .option('--json', 'print a JSON array with exact integer ids')
    .action((options: { limit?: string; after?: string; tag?: string; json?: boolean }, command: Command) =>
      run(command, async (client) => {
        const limit = options.limit === undefined ? undefined : parseNonNegativeInt32(options.limit);
        if (options.limit !== undefined && limit === undefined) throw new UsageError('--limit must be a whole number from 0 to 2147483647');
        const after = options.after === undefined ? undefined : plantId(options.after);
        const page = limit === undefined ? undefined : await client.listPlants({ limit, after, tag: options.tag });
        const found: Plant[] = page?.plants ?? [];
        if (page === undefined) for await (const plant of client.plants({ tag: options.tag, after })) found.push(plant);
        await output(options.json === true ? jsonArray(found) : plantTable(found));
        if (page?.nextAfter !== undefined && process.stderr.isTTY) process.stderr.write(`more plants follow: --after ${page.nextAfter}\n`);
      }),
    );

  plants
    .command('rm')
    .description('delete a plant')
    .argument('<id>')
    .action((id: string, _options: unknown, command: Command) =>
      run(command, async (client) => {
        const plantIdValue = plantId(id);
        await client.deletePlant(plantIdValue);
        await output(`deleted ${plantIdValue}\n`);
      }),
    );

  plants
    .command('export')
    .description('write every plant to stdout, streamed page by page')
    .addOption(new Option('--format <format>', 'JSON Lines or CSV with a header id,name,tag').choices(['jsonl', 'csv']).default('jsonl'))
    .option('--tag <tag>', 'only plants with exactly this tag')
    .action((options: { format: ImportFormat; tag?: string }, command: Command) =>
      run(command, async (client) => {
        if (options.format === 'csv') await output(CSV_HEADER);
        const line = options.format === 'csv' ? plantCsv : (plant: Plant) => `${plantJson(plant)}\n`;
        let chunk = '';
        for await (const plant of client.plants({ tag: options.tag })) {
          chunk += line(plant);
          if (chunk.length >= 65_536) {
            await output(chunk);
            chunk = '';
          }
        }
        await output(chunk);
      }),
    );

  plants
    .command('import')
    .description('create plants from JSON Lines or CSV (header id,name,tag); a re-run is safe')
    .argument('<file>', 'a file, or - for stdin')
    .addOption(new Option('--format <format>', 'the input format (default: from the file name, else from its first character)').choices(['jsonl', 'csv']))
    .option('--concurrency <n>', 'creates in flight at once', '32')
    .action((file: string, options: { format?: ImportFormat; concurrency: string }, command: Command) => {
      const concurrency = parseNonNegativeInt32(options.concurrency) ?? 0;
      if (concurrency < 1 || concurrency > 1024) return usageFailure('--concurrency must be a whole number from 1 to 1024');
      return run(
        command,
        async (client, url) => {
          const source = file === '-' ? process.stdin : await openInput(file);
          return runImport(client, readPlants(source, options.format ?? (file === '-' ? undefined : formatOfPath(file))), { concurrency, url });
        },
        concurrency,
      );
    });

  return plants;
}

function jsonArray(plants: readonly Plant[]): string {
  return plants.length === 0 ? '[]\n' : `[\n${plants.map((plant) => `  ${plantJson(plant)}`).join(',\n')}\n]\n`;
}

async function openInput(path: string): Promise<AsyncIterable<Uint8Array>> {
  let file;
  try {
    file = await open(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? 'unknown error')}`);
  }
  // A directory opens fine and fails only at the first read, after the import has begun.
  if ((await file.stat()).isDirectory()) {
    await file.close();
    throw new UsageError(`cannot read ${path}: it is a directory`);
  }
  return file.createReadStream();
}
