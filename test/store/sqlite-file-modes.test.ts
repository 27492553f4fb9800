/**
 * The embedded database holds every owner's plants: the files plantstore creates for it (the
 * database, its -wal and -shm, its folder, a backup, a restored database) are its owner's
 * alone, whatever the umask lets other users read.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, after, test } from 'node:test';
import { backupDatabase, restoreDatabase } from '../../src/store/sqlite/backup.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/server.js';

/** The permission bits other users and the group have on `path`: none expected. */
function othersBits(path: string): string {
  return (statSync(path).mode & 0o077).toString(8);
}

let umask: number;
before(() => {
  umask = process.umask(0o022); // the usual default: new files readable by everyone
});
after(() => {
  process.umask(umask);
});

/** Opens the store at `path` and writes to it; `files` (SQLite puts them beside a link's target) are checked meanwhile. */
async function storeWithAPlant(path: string, files = path): Promise<void> {
  const store = await SqliteStore.open(path);
  try {
    await store.createPlant('alice', { id: 1n, name: 'fern', tag: null });
    assert.ok(existsSync(`${files}-wal`), 'a -wal file while the store is open');
    for (const file of [files, `${files}-wal`, `${files}-shm`]) assert.equal(othersBits(file), '0', file);
  } finally {
    await store.close();
  }
}

test('a new database, its -wal and -shm, and the folders made for it are readable by their owner only', async (t) => {
  const folder = join(tempDir(t), 'var', 'data');
  await storeWithAPlant(join(folder, 'plantstore.db'));
  assert.equal(othersBits(folder), '0', 'the folder');
  assert.equal(othersBits(join(folder, '..')), '0', 'its parent, made too');
});

test('a database path that links to a file not made yet: the file is made private', async (t) => {
  const dir = tempDir(t);
  const target = join(dir, 'volume', 'plantstore.db');
  mkdirSync(join(dir, 'volume'));
  const link = join(dir, 'plantstore.db');
  symlinkSync(target, link);
  await storeWithAPlant(link, target);
});

test('an existing database keeps the mode its operator gave it', async (t) => {
  const path = join(tempDir(t), 'shared.db');
  writeFileSync(path, '', { mode: 0o640 });
  await (await SqliteStore.open(path)).close();
  assert.equal(othersBits(path), '40');
});

test('a backup and a restored database are readable by their owner only', async (t) => {
  const dir = tempDir(t);
  await storeWithAPlant(join(dir, 'live.db'));
  const backup = join(dir, 'backup.db');
  await backupDatabase(join(dir, 'live.db'), backup);
  assert.equal(othersBits(backup), '0', 'the backup');
  const restored = join(dir, 'restored', 'plantstore.db');
  await restoreDatabase(backup, restored);
  assert.equal(othersBits(restored), '0', 'the restored database');
  assert.equal(othersBits(join(dir, 'restored')), '0', 'the folder made for it');
});

test('a backup does not write through a link planted where its partial file goes, and still succeeds', async (t) => {
  const dir = tempDir(t);
  await storeWithAPlant(join(dir, 'live.db'));
  const victim = join(dir, 'victim');
  mkdirSync(victim);
  const backup = join(dir, 'backup.db');
  symlinkSync(join(victim, 'stolen.db'), `${backup}.partial`);
  await backupDatabase(join(dir, 'live.db'), backup);
  assert.equal(existsSync(join(victim, 'stolen.db')), false, 'nothing written through the link');
  assert.equal(othersBits(backup), '0');
});
