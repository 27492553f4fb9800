/** Where a limited SQLite stream ends, found in steps that leave the event loop free between them. */
import assert from 'node:assert/strict';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openConnection } from '../../src/store/sqlite/connection.js';
import { StoreUnavailableError } from '../../src/errors.js';
import { EDGE_STEP, SnapshotStreams } from '../../src/store/sqlite/snapshot-streams.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/server.js';

const PLANTS = 2 * EDGE_STEP + 500;

/** A store whose owner 'ann' has PLANTS plants with ids 1…PLANTS, all but every third tagged 'x'. */
async function seeded(t: Parameters<typeof tempDir>[0]): Promise<SqliteStore> {
  const path = join(tempDir(t), 'plantstore.db');
  const store = SqliteStore.open(path);
  t.after(() => store.close());
  const db = openConnection(path);
  const insert = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let id = 1; id <= PLANTS; id++) insert.run('ann', id, `plant ${id}`, id % 3 === 0 ? null : 'x');
  })();
  db.close();
  return store;
}

test('the last id before more is right across step boundaries, with after and tag', async (t) => {
  const store = await seeded(t);
  const edge = async (limit: number, after?: bigint, tag?: string) => {
    const stream = await store.streamPlants('ann', { after, tag, limit });
    await stream.close();
    return stream.nextAfter;
  };
  const step = BigInt(EDGE_STEP);
  assert.equal(await edge(EDGE_STEP), step);
  assert.equal(await edge(EDGE_STEP + 1), step + 1n);
  assert.equal(await edge(2 * EDGE_STEP), 2n * step);
  assert.equal(await edge(PLANTS - 1), BigInt(PLANTS - 1));
  assert.equal(await edge(PLANTS), undefined, 'exactly every plant: none follows');
  assert.equal(await edge(PLANTS + 1), undefined);
  assert.equal(await edge(5 * EDGE_STEP), undefined);
  assert.equal(await edge(EDGE_STEP, 7n), step + 7n);
  assert.equal(await edge(PLANTS - 7, 7n), undefined);
  const nth = EDGE_STEP + 2; // tagged ids run 1, 2, 4, 5, 7, …: the n-th is n + ⌊(n − 1) / 2⌋
  assert.equal(await edge(nth, undefined, 'x'), BigInt(nth + Math.floor((nth - 1) / 2)), 'the n-th tagged plant');
});

test('a huge limit gives other work a turn while the end of the stream is found', async (t) => {
  const store = await seeded(t);
  const order: string[] = [];
  const opened = store.streamPlants('ann', { after: undefined, tag: undefined, limit: 2_000_000_000 }).then((stream) => {
    order.push('stream opened');
    return stream;
  });
  setImmediate(() => order.push('another turn'));
  const stream = await opened;
  assert.equal(stream.nextAfter, undefined);
  await stream.close();
  assert.deepEqual(order, ['another turn', 'stream opened']);
});

test('a database that fails on the first read of an unlimited stream fails the open, before any 200 is sent', async (t) => {
  const path = join(tempDir(t), 'plantstore.db');
  SqliteStore.open(path).close();
  const db = openConnection(path);
  const insert = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, NULL)');
  db.transaction(() => {
    for (let id = 1; id <= 2_000; id++) insert.run('ann', id, `plant ${id}`);
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  const roots = (db.prepare("SELECT rootpage FROM sqlite_schema WHERE tbl_name = 'plants' AND rootpage > 0").pluck().all() as bigint[]).map(Number);
  db.close();
  const file = openSync(path, 'r+');
  for (const root of roots) writeSync(file, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (root - 1) * pageSize);
  closeSync(file);

  const streams = new SnapshotStreams(path);
  t.after(() => streams.close());
  await assert.rejects(streams.open('ann', { after: undefined, tag: undefined, limit: undefined }), StoreUnavailableError);
});

test('snapshot connections are bounded, and each is given back once, by a close or by a failed open', async (t) => {
  const path = join(tempDir(t), 'plantstore.db');
  SqliteStore.open(path).close();
  const streams = new SnapshotStreams(path, 1);
  t.after(() => streams.close());
  const all = { after: undefined, tag: undefined, limit: undefined };
  const first = await streams.open('ann', all);
  await assert.rejects(streams.open('ann', all), StoreUnavailableError, 'the one connection is streaming');
  first.close();
  first.close();
  const second = await streams.open('ann', all);
  await assert.rejects(streams.open('ann', all), StoreUnavailableError, 'a second close gave back nothing more');
  second.close();
  // SQLite cannot bind an object: the open fails after it took its connection.
  await assert.rejects(streams.open('ann', { ...all, after: {} as unknown as bigint }));
  (await streams.open('ann', all)).close();
});
