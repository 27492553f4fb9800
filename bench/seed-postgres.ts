/**
 * The benchmark's own schema in the PostgreSQL database it is given: dropped and made afresh
 * at the start (whatever a previous run left), migrated by `plantstore migrate`, seeded with
 * the same rows as SQLite, and dropped at the end. Nothing outside that schema is touched, so
 * tests sharing the database are not disturbed.
 */
import pg from 'pg';
import { run } from './processes.js';
import { CLI, plantstoreTokens, seedRows, type ManyUser, type Seeded } from './seed.js';

export const BENCH_SCHEMA = 'plantstore_bench';

/**
 * The URL every bench connection uses: the bench schema first on the search_path, and
 * synchronous_commit=on said explicitly (an `options` in the URL replaces plantstore's own).
 */
export function benchUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const given = url.searchParams.get('options');
  url.searchParams.set('options', `${given === null ? '' : `${given} `}-c search_path=${BENCH_SCHEMA} -c synchronous_commit=on`);
  return url.toString();
}

async function withClient<T>(databaseUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000, statement_timeout: 300_000 });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

export async function dropBenchSchema(databaseUrl: string): Promise<void> {
  await withClient(databaseUrl, (client) => client.query(`DROP SCHEMA IF EXISTS ${BENCH_SCHEMA} CASCADE`));
}

/** Version, synchronous_commit and whether the server runs on this machine, for the report. */
export async function postgresFacts(databaseUrl: string): Promise<{ version: string; synchronousCommit: string }> {
  return withClient(benchUrl(databaseUrl), async (client) => {
    const { rows } = await client.query<{ version: string; sc: string }>("SELECT current_setting('server_version') AS version, current_setting('synchronous_commit') AS sc");
    return { version: rows[0]?.version ?? 'unknown', synchronousCommit: rows[0]?.sc ?? 'unknown' };
  });
}

/** A fresh bench schema, migrated, seeded in one transaction per 20,000 rows, with tokens. */
export async function seedPostgres(databaseUrl: string, bigUserPlants: number, many: readonly ManyUser[]): Promise<Seeded> {
  await dropBenchSchema(databaseUrl);
  await withClient(databaseUrl, (client) => client.query(`CREATE SCHEMA ${BENCH_SCHEMA}`));
  const url = benchUrl(databaseUrl);
  await run(process.execPath, [CLI, 'migrate', '--database-url', url], 60_000);
  await withClient(url, async (client) => {
    const insert = 'INSERT INTO plants (owner, id, name, tag) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[])';
    let batch: [string[], string[], string[], (string | null)[]] = [[], [], [], []];
    const flush = async () => {
      if (batch[0].length > 0) await client.query(insert, batch);
      batch = [[], [], [], []];
    };
    for (const [owner, id, name, tag] of seedRows(bigUserPlants, many)) {
      batch[0].push(owner);
      batch[1].push(String(id));
      batch[2].push(name);
      batch[3].push(tag);
      if (batch[0].length === 20_000) await flush();
    }
    await flush();
    await client.query('ANALYZE plants');
  });
  return plantstoreTokens(url, many);
}
