/** A backup or restore that reports success lasts through a power cut right after it. */
import assert from 'node:assert/strict';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from '../../src/store/open-store.js';
import { backupDatabase, restoreDatabase } from '../../src/store/sqlite/backup.js';
import { LazyFs, lazyFsSkip } from '../helpers/lazyfs.js';

const skip = await lazyFsSkip();

function syncDir(path: string): void {
  const fd = openSync(path, 'r');
  fsyncSync(fd);
  closeSync(fd);
}

/** A plantstore database at `path` holding one plant, its name synced into its folder. */
async function databaseWithOnePlant(path: string): Promise<void> {
  const store = await openStore({ databaseUrl: `sqlite:${path}`, databasePoolSize: 2 });
  await store.createPlant('alice', { id: 1n, name: 'fern', tag: null });
  await store.close();
  syncDir(join(path, '..'));
}

test('a finished backup and a finished restore are still there after a power cut', { skip }, async (t) => {
  const fs = await LazyFs.mount(t);
  const live = join(fs.mountpoint, 'live.db');
  const backup = join(fs.mountpoint, 'backup.db');
  const restored = join(fs.mountpoint, 'restored.db');
  await databaseWithOnePlant(live);

  assert.deepEqual(await backupDatabase(live, backup), { plants: 1, tokens: 0 });
  assert.deepEqual(await restoreDatabase(backup, restored), { plants: 1, tokens: 0 });
  await fs.powerCut();
  await fs.start();

  for (const path of [backup, restored]) {
    const store = await openStore({ databaseUrl: `sqlite:${path}`, databasePoolSize: 2 });
    try {
      assert.deepEqual(await store.getPlant('alice', 1n), { id: 1n, name: 'fern', tag: null }, path);
    } finally {
      await store.close(); // while the file system is still mounted: the unmount is an after-hook
    }
  }
});
