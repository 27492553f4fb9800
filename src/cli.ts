#!/usr/bin/env node
/**
 * The `plantstore` command: serve (the default), migrate, token … (cli/token-commands.ts),
 * backup, restore, and plants … (cli/plants-command.ts). Every setting is a flag here and an
 * environment variable; see settings.ts.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import { UsageError, USAGE_EXIT_CODE, configureUsageErrors, refusePastedToken, withDefaultCommand } from './cli/usage.js';
import { DATABASE_SETTINGS, fail, openDatabase, settingOptions, settingsFrom, sqliteFile } from './cli/command-settings.js';
import { plantsCommand } from './cli/plants-command.js';
import { tokenCommand } from './cli/token-commands.js';
import { stdoutFailed } from './cli/cli-errors.js';
import { StoreUnavailableError } from './errors.js';
import { SettingError } from './settings.js';
import { StartError, briefReason } from './start-failure.js';
import { BackupError, backupDatabase, restoreDatabase } from './store/sqlite/backup.js';
import { serve } from './serve.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('plantstore')
  .description('A Plant Store HTTP service: plants behind bearer auth, on embedded SQLite or PostgreSQL.')
  .version(version, '-V, --version', 'print the version and exit');

settingOptions(program.command('serve').description('serve the HTTP API (the default command)'), 'all').action(
  async (_options, command: Command) => serve(settingsFrom(command)),
);

settingOptions(program.command('migrate').description('apply pending database schema migrations and exit'), DATABASE_SETTINGS).action(
  async (_options, command: Command) => {
    let applied = 0;
    const store = await openDatabase(settingsFrom(command, DATABASE_SETTINGS), (count) => (applied = count));
    await store.close();
    process.stdout.write(applied === 0 ? 'the schema was up to date\n' : `applied ${applied} migration${applied === 1 ? '' : 's'}; the schema is up to date\n`);
  },
);

program.addCommand(tokenCommand());

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
