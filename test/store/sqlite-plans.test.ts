/** The SQLite page queries use the index that fits them, whatever the planner would guess. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openConnection } from '../../src/store/sqlite/connection.js';
import { migrate } from '../../src/store/sqlite/migrations.js';
import { lastIdSql, pageSql } from '../../src/store/sqlite/page-reads.js';
import { plantFilter } from '../../src/store/sqlite/plant-filter.js';
import { ALL_FIELDS } from '../helpers/page.js';
import { tempDir } from '../helpers/server.js';

/** The plans of a page's two statements (its plants, and its last id when more follow). */
function plan(t: Parameters<typeof tempDir>[0], query: { tag?: string; after?: bigint }): string {
  const db = openConnection(join(tempDir(t), 'plantstore.db'));
  t.after(() => db.close());
  migrate(db);
  const { from, params } = plantFilter('ann', { tag: query.tag, after: query.after, limit: 10 });
  const details = [pageSql(from, ALL_FIELDS), lastIdSql(from)].map((sql) => {
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params, 10) as { detail: string }[];
    return rows.map((row) => row.detail).join('; ');
  });
  return details.join(' | ');
}

test('a tag filter reads the tag index, not every plant of the owner', (t) => {
  assert.match(plan(t, { tag: 'herb' }), /USING INDEX plants_by_tag \(owner=\? AND tag=\?\)/);
  assert.match(plan(t, { tag: 'herb', after: 5n }), /USING INDEX plants_by_tag \(owner=\? AND tag=\? AND id>\?\)/);
});

test('a page without a tag reads the primary key from its `after` on, in order', (t) => {
  const detail = plan(t, { after: 5n });
  assert.match(detail, /USING PRIMARY KEY \(owner=\? AND id>\?\)/);
  assert.doesNotMatch(detail, /TEMP B-TREE/, 'no sort');
});
