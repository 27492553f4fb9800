/**
 * The data each scenario needs, identical on both servers: 1,000 plants for the get user and
 * for the mixed user, an empty post user, and (plantstore only) a user with a million plants.
 * plantstore's rows go straight into its SQLite file before it starts, in one transaction,
 * because a million creates over HTTP would take longer than the whole benchmark.
 */
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { run } from './processes.js';

export const USERS = ['get', 'post', 'mixed', 'big'] as const;
export type User = (typeof USERS)[number];
export type Tokens = Record<User, string>;

/** Plants seeded for the get and mixed users. */
export const SMALL_USER_PLANTS = 1000;

export const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

function plantOf(id: number): { name: string; tag: string | null } {
  return { name: `seeded plant ${id}`, tag: id % 2 === 0 ? 'seed' : null };
}

/** Migrates, seeds rows and creates one token per user; returns the tokens. */
export async function seedPlantstore(databaseUrl: string, bigUserPlants: number): Promise<{ tokens: Tokens; sqliteVersion: string }> {
  await run(process.execPath, [CLI, 'migrate', '--database-url', databaseUrl], 30_000);
  const db = new Database(databaseUrl.slice('sqlite:'.length));
  const insert = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const user of ['bench-get', 'bench-mixed']) {
      for (let id = 1; id <= SMALL_USER_PLANTS; id++) insert.run(user, id, plantOf(id).name, plantOf(id).tag);
    }
    for (let id = 1; id <= bigUserPlants; id++) insert.run('bench-big', id, plantOf(id).name, plantOf(id).tag);
  })();
  const { version } = db.prepare('SELECT sqlite_version() AS version').get() as { version: string };
  db.close();
  const tokens: Partial<Tokens> = {};
  for (const user of USERS) {
    const out = await run(process.execPath, [CLI, 'token', 'create', '--user', `bench-${user}`, '--database-url', databaseUrl], 30_000);
    tokens[user] = out.trim();
  }
  return { tokens: tokens as Tokens, sqliteVersion: version };
}

/** Tokens for the baseline, which accepts any token it was started with. */
export function baselineTokens(): Tokens {
  const stamp = Date.now().toString(36);
  return { get: `base-get-${stamp}`, post: `base-post-${stamp}`, mixed: `base-mixed-${stamp}`, big: `base-big-${stamp}` };
}

/** Creates the small users' plants on the baseline over HTTP, ten at a time. */
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
