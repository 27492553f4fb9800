#!/usr/bin/env node
/**
 * The `plantstore` command: serve (the default), token create|list|revoke, migrate, plants … (see cli/).
 * Every setting is a flag here and an environment variable; see settings.ts.
 */
import { Command, Option } from 'commander';
import { issueToken, parseDuration } from './auth/api-tokens.js';
import { isValidOwner } from './auth/principal.js';
import { StoreUnavailableError } from './errors.js';
import { SETTINGS, SettingError, loadSettings, type Settings } from './settings.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';
import { serve } from './serve.js';
import { plantsCommand } from './cli/plants-command.js';

function settingOptions(command: Command, keys: readonly (keyof Settings)[] | 'all'): Command {
  for (const spec of SETTINGS) {
    if (keys !== 'all' && !keys.includes(spec.key)) continue;
    const defaultText = spec.default === undefined || spec.default === '' ? 'unset' : spec.default;
    command.addOption(new Option(`--${spec.flag} <value>`, `${spec.doc} [env ${spec.env}, default ${defaultText}]`));
  }
  return command;
}

const DATABASE_SETTINGS: (keyof Settings)[] = ['databaseUrl', 'databasePoolSize'];

/** The settings a command uses; `only` keeps the others at their defaults. */
function settingsFrom(command: Command, only?: readonly (keyof Settings)[]): Settings {
  return loadSettings(process.env, command.opts<Partial<Record<keyof Settings, string>>>(), only);
}

async function withStore<T>(command: Command, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(settingsFrom(command, DATABASE_SETTINGS));
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

function iso(date: Date | null): string {
  return date === null ? '-' : date.toISOString();
}

const program = new Command('plantstore')
  .description('A Plant Store HTTP service: plants behind bearer auth, on embedded SQLite or PostgreSQL.')
  .showHelpAfterError();

settingOptions(program.command('serve', { isDefault: true }).description('serve the HTTP API (the default command)'), 'all').action(
  async (_options, command: Command) => serve(settingsFrom(command)),
);

settingOptions(program.command('migrate').description('apply pending database schema migrations and exit'), DATABASE_SETTINGS).action(
  async (_options, command: Command) => {
    const settings = settingsFrom(command, DATABASE_SETTINGS);
    const store = await openStore(settings);
    await store.close();
    process.stdout.write('migrations are up to date\n');
  },
);

const token = program.command('token').description('manage API tokens (create, list, revoke)');

settingOptions(
  token
    .command('create')
    .description('create an API token and print it, and nothing else, on stdout')
    .requiredOption('--user <name>', 'the user the token acts for; all tokens of one user share its plants')
    .option('--read-only', 'grant only plants:read (default: plants:read and plants:write)')
    .option('--expires-in <duration>', 'lifetime such as 90s, 30m, 12h or 30d (default: never expires)'),
  DATABASE_SETTINGS,
).action(async (options: { user: string; readOnly?: boolean; expiresIn?: string }, command: Command) => {
  const expiresInMs = options.expiresIn === undefined ? undefined : parseDuration(options.expiresIn);
  if (options.expiresIn !== undefined && expiresInMs === undefined) {
    fail('--expires-in must look like 90s, 30m, 12h or 30d');
  }
  if (options.user.trim() === '' || !isValidOwner(options.user)) {
    fail('--user must be 1 to 256 characters without control characters');
  }
  const issued = await withStore(command, (store) => issueToken(store, { user: options.user, readOnly: options.readOnly === true, expiresInMs }));
  process.stdout.write(`${issued?.token}\n`);
});

settingOptions(
  token.command('list').description('list tokens: id, user, scopes, created, expires, last used (never the token)').option('--json', 'print a JSON array'),
  DATABASE_SETTINGS,
).action(async (options: { json?: boolean }, command: Command) => {
  const tokens = await withStore(command, (store) => store.listTokens());
  if (options.json === true) {
    process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
    return;
  }
  const rows = [['ID', 'USER', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED']];
  for (const t of tokens) {
    rows.push([t.id, t.user, t.scopes.join(' '), iso(t.createdAt), iso(t.expiresAt), iso(t.lastUsedAt), iso(t.revokedAt)]);
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  for (const row of rows) process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()}\n`);
});

settingOptions(token.command('revoke').description('revoke a token by its id (from token list); effective on the next request').argument('<token-id>'), DATABASE_SETTINGS).action(
  async (id: string, _options, command: Command) => {
    const revoked = await withStore(command, (store) => store.revokeToken(id, new Date()));
    if (!revoked) fail(`no active token has the id ${id}`);
    process.stdout.write(`revoked ${id}\n`);
  },
);

program.addCommand(plantsCommand());

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof SettingError) {
    process.stderr.write(`plantstore: bad setting: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof StoreUnavailableError) fail(`cannot use the database: ${error.message}`);
  throw error;
}
