/**
 * The data each scenario needs, identical on every server: 1,000 plants for the get user and
 * for the mixed user, an empty post user, the many scenario's owners (each with its own token
 * and spread-out ids) and, for plantstore only, a user with a million plants (on SQLite in a
 * database of its own, which only list-all reads). plantstore's rows
 * go straight into its database before it starts, because a million creates over HTTP would
 * take longer than the whole benchmark; its tokens come from `plantstore token create`.
 */
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { run } from './processes.js';
import { MANY_PLANTS_PER_OWNER, plantOf, spreadIds } from './seeded-plants.js';

export const USERS = ['get', 'post', 'mixed', 'big'] as const;
export type User = (typeof USERS)[number];
export type Tokens = Record<User, string>;

/** Plants seeded for the get and mixed users. */
export const SMALL_USER_PLANTS = 1000;

export const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

/** A many-scenario owner before it has a token. */
export interface ManyUser {
  user: string;
  ids: number[];
}

/** One token per owner, and the token's seeded ids. */
export interface Seeded {
  tokens: Tokens;
  many: (ManyUser & { token: string })[];
}

export function manyUsers(owners: number): ManyUser[] {
  return Array.from({ length: owners }, (_, i) => ({ user: `bench-many-${String(i).padStart(3, '0')}`, ids: spreadIds(MANY_PLANTS_PER_OWNER) }));
}

/** Rows of the small users, the big user and the many owners, in the order they are inserted. */
export function* seedRows(bigUserPlants: number, many: readonly ManyUser[]): Generator<[owner: string, id: number, name: string, tag: string | null]> {
  for (const user of ['bench-get', 'bench-mixed']) {
    for (let id = 1; id <= SMALL_USER_PLANTS; id++) yield [user, id, plantOf(id).name, plantOf(id).tag];
  }
  for (const { user, ids } of many) for (const id of ids) yield [user, id, plantOf(id).name, plantOf(id).tag];
  for (let id = 1; id <= bigUserPlants; id++) yield [`bench-big`, id, plantOf(id).name, plantOf(id).tag];
}

/** Runs `plantstore token create` for each user, a few at a time (each is a Node start). */
export async function createTokens(databaseUrl: string, users: readonly string[], parallel = 4): Promise<string[]> {
  const tokens: string[] = new Array<string>(users.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < users.length; i = next++) {
      const out = await run(process.execPath, [CLI, 'token', 'create', '--user', users[i] as string, '--database-url', databaseUrl], 30_000);
      tokens[i] = out.trim();
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return tokens;
}

/** Tokens for the scenario users and the many owners, through the CLI. */
export async function plantstoreTokens(databaseUrl: string, many: readonly ManyUser[]): Promise<Seeded> {
  const all = await createTokens(databaseUrl, [...USERS.map((user) => `bench-${user}`), ...many.map((owner) => owner.user)]);
  const tokens = Object.fromEntries(USERS.map((user, i) => [user, all[i] as string])) as Tokens;
  return { tokens, many: many.map((owner, i) => ({ ...owner, token: all[USERS.length + i] as string })) };
}

/** Migrates the SQLite file, seeds its rows in one transaction and creates the tokens. */
export async function seedSqlite(databaseUrl: string, bigUserPlants: number, many: readonly ManyUser[]): Promise<Seeded & { sqliteVersion: string }> {
  await run(process.execPath, [CLI, 'migrate', '--database-url', databaseUrl], 30_000);
  const db = new Database(databaseUrl.slice('sqlite:'.length));
  const insert = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const row of seedRows(bigUserPlants, many)) insert.run(...row);
  })();
  const { version } = db.prepare('SELECT sqlite_version() AS version').get() as { version: string };
  db.close();
  return { ...(await plantstoreTokens(databaseUrl, many)), sqliteVersion: version };
}

/** Tokens for the in-memory baseline, which accepts any token it was started with. */
export function baselineTokens(): Tokens {
  const stamp = Date.now().toString(36);
  return { get: `base-get-${stamp}`, post: `base-post-${stamp}`, mixed: `base-mixed-${stamp}`, big: `base-big-${stamp}` };
}

/** The many owners with in-memory baseline tokens. */
export function baselineMany(many: readonly ManyUser[]): Seeded['many'] {
  const stamp = Date.now().toString(36);
  return many.map((owner) => ({ ...owner, token: `base-${owner.user}-${stamp}` }));
}

/** Creates the small users' plants on the in-memory baseline over HTTP, ten at a time. */
export async function seedBaseline(origin: string, tokens: Tokens): Promise<void> {
  for (const token of [tokens.get, tokens.mixed]) {
    for (let first = 1; first <= SMALL_USER_PLANTS; first += 10) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const id = first + i;
          const plant = plantOf(id);
          const body = JSON.stringify(plant.tag === null ? { id, name: plant.name } : { id, ...plant });
          const res = await fetch(`${origin}/plants`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body,
          });
          if (res.status !== 200) throw new Error(`seeding the baseline: POST answered ${res.status}`);
          await res.arrayBuffer();
        }),
      );
    }
  }
}
