/** A database migrated by a newer plantstore is refused at start, in one line, on both stores. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { runCli } from '../helpers/process.js';
import { storeFactories } from './store-factories.js';

/** Records schema version 99 in a migrated database, as a later plantstore would. */
async function markNewer(kind: string, url: string): Promise<void> {
  if (kind === 'sqlite') {
    const db = new Database(url.slice('sqlite:'.length));
    db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (99, 0)').run();
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('INSERT INTO schema_migrations (version) VALUES (99)');
  } finally {
    await client.end();
  }
}

for (const factory of storeFactories()) {
  describe(`a schema newer than this build on ${factory.kind}`, { skip: factory.skip }, () => {
    test('migrate and serve stop with one line naming both versions; nothing is waited for', { timeout: 60_000 }, async (t) => {
      const url = await factory.freshUrl(t);
      await factory.open(t, { url }); // migrated, and closed after the test
      await markNewer(factory.kind, url);
      for (const args of [['migrate'], ['serve', '--port', '0', '--bootstrap-token', 'false']]) {
        const result = await runCli([...args, '--database-url', url]);
        assert.equal(result.code, 1, `${args[0]}: ${result.stderr}`);
        assert.match(result.stderr, /^plantstore: .*schema is version 99, made by a newer plantstore; this one knows versions up to 2: /);
        assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
      }
    });
  });
}
