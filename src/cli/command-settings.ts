/**
 * What the commands that work on the database share: settings as flags, the database they name
 * opened and closed around the work, and one-line failures.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { SETTINGS, loadSettings, type Settings } from '../settings.js';
import { asStartError } from '../start-failure.js';
import { sqlitePath } from '../store/sqlite/connection.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { UsageError } from './usage.js';

/** Adds a flag for each of the settings `keys` names (every one for 'all'). */
export function settingOptions(command: Command, keys: readonly (keyof Settings)[] | 'all'): Command {
  for (const spec of SETTINGS) {
    if (keys !== 'all' && !keys.includes(spec.key)) continue;
    const defaultText = spec.default === undefined || spec.default === '' ? 'unset' : spec.default;
    const env = spec.file === true ? `${spec.env} or ${spec.env}_FILE` : spec.env;
    command.addOption(new Option(`--${spec.flag} <value>`, `${spec.doc} [env ${env}, default ${defaultText}]`));
  }
  return command;
}

export const DATABASE_SETTINGS: (keyof Settings)[] = ['databaseUrl', 'databasePoolSize'];

/** Where commander keeps each setting's flag: its camel-cased name, which is not always the key (`--stream-deadline`). */
const FLAG_ATTRIBUTES = SETTINGS.map((spec) => [spec.key, new Option(`--${spec.flag} <value>`).attributeName()] as const);

/** The settings a command uses; `only` keeps the others at their defaults. */
export function settingsFrom(command: Command, only?: readonly (keyof Settings)[]): Settings {
  const given = command.opts<Record<string, string | undefined>>();
  return loadSettings(process.env, Object.fromEntries(FLAG_ATTRIBUTES.map(([key, attribute]) => [key, given[attribute]])), only);
}

/** Opens the database the settings name; a failure an operator can fix becomes a StartError. */
export async function openDatabase(settings: Settings, onMigrated?: (applied: number) => void): Promise<Store> {
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
export async function withStore<T>(command: Command, work: (store: Store) => Promise<T>, creates = false): Promise<T> {
  const settings = settingsFrom(command, DATABASE_SETTINGS);
  const absent = absentSqliteFile(settings);
  if (absent !== undefined && !creates) throw new UsageError(`there is no database at ${absent}; check DATABASE_URL (or --database-url)`);
  const store = await openDatabase(settings);
  if (absent !== undefined) process.stderr.write(`plantstore: created a new database at ${absent}\n`);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A failure the user can act on: one line on stderr, exit 1, no help text. */
export function fail(message: string): never {
  process.stderr.write(`plantstore: ${message}\n`);
  process.exit(1);
}

/** The embedded database file that backup and restore work on; PostgreSQL has its own tools. */
export function sqliteFile(command: Command, verb: string): string {
  const settings = settingsFrom(command, DATABASE_SETTINGS);
  if (!settings.databaseUrl.startsWith('sqlite:')) {
    fail(`${verb} works on the embedded SQLite database; for PostgreSQL use pg_dump and pg_restore (docs/operations.md)`);
  }
  return resolve(sqlitePath(settings.databaseUrl));
}
