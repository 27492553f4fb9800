#!/usr/bin/env node
/**
 * The `plantstore` command: serve (the default), token create|list|revoke, migrate, backup,
 * restore, and plants … (cli/plants-command.ts). Every setting is a flag here and an environment
 * variable; see settings.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { expiryAfter, isApiToken, isTokenId, isUsable, issueToken } from './auth/api-tokens.js';
import { parseDuration } from './util/duration.js';
import { UserNameError, normalizeUserName, shownUserName } from './auth/user-name.js';
import { UsageError, USAGE_EXIT_CODE, configureUsageErrors, withDefaultCommand } from './cli/usage.js';
import { StoreUnavailableError } from './errors.js';
import { SETTINGS, SettingError, loadSettings, type Settings } from './settings.js';
import { StartError, asStartError, briefReason } from './start-failure.js';
import { BackupError, backupDatabase, restoreDatabase } from './store/sqlite/backup.js';
import { sqlitePath } from './store/sqlite/connection.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';
import { serve } from './serve.js';
import { plantsCommand } from './cli/plants-command.js';
import { stdoutFailed } from './cli/cli-errors.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function settingOptions(command: Command, keys: readonly (keyof Settings)[] | 'all'): Command {
  for (const spec of SETTINGS) {
    if (keys !== 'all' && !keys.includes(spec.key)) continue;
    const defaultText = spec.default === undefined || spec.default === '' ? 'unset' : spec.default;
    const env = spec.file === true ? `${spec.env} or ${spec.env}_FILE` : spec.env;
    command.addOption(new Option(`--${spec.flag} <value>`, `${spec.doc} [env ${env}, default ${defaultText}]`));
  }
  return command;
}

const DATABASE_SETTINGS: (keyof Settings)[] = ['databaseUrl', 'databasePoolSize'];

/** Where commander keeps each setting's flag: its camel-cased name, which is not always the key (`--stream-deadline`). */
const FLAG_ATTRIBUTES = SETTINGS.map((spec) => [spec.key, new Option(`--${spec.flag} <value>`).attributeName()] as const);

/** The settings a command uses; `only` keeps the others at their defaults. */
function settingsFrom(command: Command, only?: readonly (keyof Settings)[]): Settings {
  const given = command.opts<Record<string, string | undefined>>();
  return loadSettings(process.env, Object.fromEntries(FLAG_ATTRIBUTES.map(([key, attribute]) => [key, given[attribute]])), only);
}

/** Opens the database the settings name; a failure an operator can fix becomes a StartError. */
async function open(settings: Settings, onMigrated?: (applied: number) => void): Promise<Store> {
  try {
    return await openStore({ ...settings, onMigrated });
  } catch (error) {
    throw asStartError(error, settings);
  }
}

/** The file of a SQLite DATABASE_URL when there is none yet (opening the database creates it). */
function absentSqliteFile(settings: Settings): string | undefined {
  if (!settings.databaseUrl.startsWith('sqlite:')) return undefined;
  const path = sqlitePath(settings.databaseUrl);
  return existsSync(path) ? undefined : path;
}

/**
 * Runs `work` on the database the settings name. A SQLite file that is not there is created only
 * when `creates` (a token made before the first start); otherwise a mistyped path would quietly
 * make an empty database, so it is refused, and a created one is said.
 */
async function withStore<T>(command: Command, work: (store: Store) => Promise<T>, creates = false): Promise<T> {
  const settings = settingsFrom(command, DATABASE_SETTINGS);
  const absent = absentSqliteFile(settings);
  if (absent !== undefined && !creates) throw new UsageError(`there is no database at ${absent}; check DATABASE_URL (or --database-url)`);
  const store = await open(settings);
  if (absent !== undefined) process.stderr.write(`plantstore: created a new database at ${absent}\n`);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A failure the user can act on: one line on stderr, exit 1, no help text. */
function fail(message: string): never {
  process.stderr.write(`plantstore: ${message}\n`);
  process.exit(1);
}

/** The embedded database file that backup and restore work on; PostgreSQL has its own tools. */
function sqliteFile(command: Command, verb: string): string {
  const settings = settingsFrom(command, DATABASE_SETTINGS);
  if (!settings.databaseUrl.startsWith('sqlite:')) {
    fail(`${verb} works on the embedded SQLite database; for PostgreSQL use pg_dump and pg_restore (docs/operations.md)`);
  }
  return resolve(sqlitePath(settings.databaseUrl));
}

function iso(date: Date | null): string {
  return date === null ? '-' : date.toISOString();
}

const program = new Command('plantstore')
  .description('A Plant Store HTTP service: plants behind bearer auth, on embedded SQLite or PostgreSQL.')
  .version(version, '-V, --version', 'print the version and exit');

settingOptions(program.command('serve').description('serve the HTTP API (the default command)'), 'all').action(
  async (_options, command: Command) => serve(settingsFrom(command)),
);

settingOptions(program.command('migrate').description('apply pending database schema migrations and exit'), DATABASE_SETTINGS).action(
  async (_options, command: Command) => {
    let applied = 0;
    const store = await open(settingsFrom(command, DATABASE_SETTINGS), (count) => (applied = count));
    await store.close();
    process.stdout.write(applied === 0 ? 'the schema was up to date\n' : `applied ${applied} migration${applied === 1 ? '' : 's'}; the schema is up to date\n`);
  },
);

const token = program.command('token').description('manage API tokens (create, list, revoke)');

const JWT_SHAPE = /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/;

/**
 * Refuses a plantstore token or a JWT pasted where a name belongs, without echoing it (stderr
 * may go to a log): taken as a user name it would be stored, listed and backed up in clear.
 */
function refusePastedToken(value: string, instead: string): void {
  if (isApiToken(value) || JWT_SHAPE.test(value)) throw new UsageError(`that is a token, ${instead}`);
}

settingOptions(
  token
    .command('create')
    .description('create an API token and print it, and nothing else, on stdout')
    // Checked in the action, not by commander, which would report it missing before a misspelt flag.
    .option('--user <name>', 'the user the token acts for; all tokens of one user share its plants (required)')
    .option('--read-only', 'grant only plants:read (default: plants:read and plants:write)')
    .option('--expires-in <duration>', 'lifetime such as 90s, 30m, 12h or 30d (default: never expires)'),
  DATABASE_SETTINGS,
).action(async (options: { user?: string; readOnly?: boolean; expiresIn?: string }, command: Command) => {
  if (options.user === undefined) command.error("required option '--user <name>' not specified");
  refusePastedToken(options.user, 'not a user name: --user takes the name of the user the token acts for');
  const expiresInMs = options.expiresIn === undefined ? undefined : parseDuration(options.expiresIn);
  if (options.expiresIn !== undefined && expiresInMs === undefined) {
    throw new UsageError('--expires-in must look like 90s, 30m, 12h or 30d');
  }
  if (expiresInMs !== undefined && expiryAfter(new Date(), expiresInMs) === undefined) {
    throw new UsageError(`--expires-in ${options.expiresIn} ends after the year 9999; give a shorter lifetime, or none for a token that never expires`);
  }
  let user: string;
  try {
    user = normalizeUserName(options.user);
  } catch (error) {
    if (!(error instanceof UserNameError)) throw error;
    throw new UsageError(`--user ${JSON.stringify(options.user)} is refused: ${error.message}`);
  }
  const issued = await withStore(command, (store) => issueToken(store, { user, readOnly: options.readOnly === true, expiresInMs }), true);
  process.stdout.write(`${issued?.token}\n`);
});

settingOptions(
  token
    .command('list')
    .description('list tokens: id, user, scopes, created, expires, last used, revoked (never the token)')
    .option('--active', 'only the tokens still accepted: neither revoked nor expired')
    .option('--json', 'print a JSON array'),
  DATABASE_SETTINGS,
).action(async (options: { active?: boolean; json?: boolean }, command: Command) => {
  const stored = await withStore(command, (store) => store.listTokens());
  const now = Date.now();
  const tokens = options.active === true ? stored.filter((t) => isUsable(t, now)) : stored;
  if (options.json === true) {
    process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
    return;
  }
  const rows = [['ID', 'USER', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED']];
  for (const t of tokens) {
    rows.push([t.id, shownUserName(t.user), t.scopes.join(' '), iso(t.createdAt), iso(t.expiresAt), iso(t.lastUsedAt), iso(t.revokedAt)]);
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  for (const row of rows) process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()}\n`);
});

settingOptions(token.command('revoke').description('revoke a token by its id (from token list); effective on the next request').argument('<token-id>'), DATABASE_SETTINGS).action(
  async (id: string, _options, command: Command) => {
    refusePastedToken(id, 'not its id: revoke takes the ID that token list shows');
    if (!isTokenId(id)) throw new UsageError('that is not a token id (tok_ and 12 hex digits): revoke takes the ID that token list shows');
    const revoked = await withStore(command, (store) => store.revokeToken(id, new Date()));
    if (!revoked) fail(`no active token has the id ${id}`);
    process.stdout.write(`revoked ${id}\n`);
  },
);

settingOptions(
  program
    .command('backup')
    .description('copy the embedded SQLite database to a new file, consistently, while the server goes on serving')
    .argument('<file>', 'the backup file to create; it must not exist yet'),
  DATABASE_SETTINGS,
).action(async (file: string, _options, command: Command) => {
  refusePastedToken(basename(file), 'not a file name: backup takes the file to create');
  const source = sqliteFile(command, 'backup');
  const { plants, tokens } = await backupDatabase(source, resolve(file));
  process.stdout.write(`backed up ${source} to ${file}: ${plants} plants, ${tokens} tokens\n`);
});

settingOptions(
  program
    .command('restore')
    .description('replace the embedded SQLite database with a backup; refused while a server has the database open')
    .argument('<file>', 'a file made by plantstore backup'),
  DATABASE_SETTINGS,
).action(async (file: string, _options, command: Command) => {
  const target = sqliteFile(command, 'restore');
  const { plants, tokens } = await restoreDatabase(resolve(file), target);
  process.stdout.write(`restored ${target} from ${file}: ${plants} plants, ${tokens} tokens\n`);
});

program.addCommand(plantsCommand());
// Not for serve, whose log writes to the file descriptor itself (logger.ts).
program.hook('preAction', (_program, action) => {
  if (action.name() !== 'serve') process.stdout.on('error', stdoutFailed);
});

configureUsageErrors(program);

try {
  await program.parseAsync(withDefaultCommand(process.argv.slice(2)), { from: 'user' });
} catch (error) {
  // 0 after --help or --version, 2 for a usage error
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT_CODE);
  if (error instanceof UsageError || error instanceof SettingError) {
    const prefix = error instanceof SettingError ? 'bad setting: ' : '';
    process.stderr.write(`plantstore: ${prefix}${error.message}\n`);
    process.exit(USAGE_EXIT_CODE);
  }
  if (error instanceof StartError || error instanceof BackupError) fail(error.message);
  if (error instanceof StoreUnavailableError) fail(`cannot use the database: ${error.message}`);
  // A file or folder a command could not create, write or rename (a backup's, a restore's): name it.
  const { code, path } = error as NodeJS.ErrnoException;
  if (typeof code === 'string' && typeof path === 'string') fail(`cannot use ${path} (${code}); check the folder and its permissions`);
  // Anything else is a bug or a failure nobody foresaw: still one line, the stack only when asked for.
  if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  fail(`failed unexpectedly (${briefReason(error)}); LOG_LEVEL=debug shows the details`);
}
