/**
 * lazyfs keeps what was synced through a power cut and loses everything else: file data until
 * the file is fsynced or fdatasynced, names until their directory is fsynced.
 */
import assert from 'node:assert/strict';
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LazyFs, lazyFsSkip } from '../helpers/lazyfs.js';

const skip = await lazyFsSkip();

/** Writes `data` at `position` (the end when omitted), fsyncing the file when `sync` says how. */
function write(path: string, data: string, options: { position?: number; sync?: 'fsync' | 'fdatasync' } = {}): void {
  const fd = openSync(path, 'a+');
  try {
    if (options.position === undefined) writeSync(fd, data);
    else writeSync(fd, data, options.position);
    if (options.sync === 'fsync') fsyncSync(fd);
    if (options.sync === 'fdatasync') fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  fsyncSync(fd);
  closeSync(fd);
}

function syncDir(path: string): void {
  const fd = openSync(path, 'r');
  fsyncSync(fd);
  closeSync(fd);
}

async function cutAndRestart(fs: LazyFs): Promise<void> {
  await fs.powerCut();
  await fs.start();
}

describe('lazyfs', { skip }, () => {
  test('file data survives a power cut once fsynced or fdatasynced, and not before', async (t) => {
    const fs = await LazyFs.mount(t);
    const at = (name: string) => join(fs.mountpoint, name);
    write(at('fsynced'), 'kept', { sync: 'fsync' });
    write(at('datasynced'), 'kept too', { sync: 'fdatasync' });
    write(at('never-synced'), 'lost');
    syncDir(fs.mountpoint);
    write(at('fsynced'), ' and lost');
    write(at('datasynced'), 'LOST', { position: 0 });
    assert.equal(readFileSync(at('fsynced'), 'utf8'), 'kept and lost', 'before the cut every write reads back');

    await cutAndRestart(fs);

    assert.equal(readFileSync(at('fsynced'), 'utf8'), 'kept');
    assert.equal(readFileSync(at('datasynced'), 'utf8'), 'kept too');
    assert.equal(readFileSync(at('never-synced'), 'utf8'), '', 'a synced name without synced data is an empty file');
  });

  test('names created in a directory that was not fsynced are gone, even when their files were synced', async (t) => {
    const fs = await LazyFs.mount(t);
    const at = (name: string) => join(fs.mountpoint, name);
    mkdirSync(at('synced-dir'));
    mkdirSync(at('unsynced-dir'));
    syncDir(fs.mountpoint);
    write(at('synced-dir/a'), 'a', { sync: 'fsync' });
    write(at('unsynced-dir/b'), 'b', { sync: 'fsync' });
    syncDir(at('synced-dir'));
    mkdirSync(at('new-dir'));
    write(at('new-dir/c'), 'c', { sync: 'fsync' });
    syncDir(at('new-dir'));

    await cutAndRestart(fs);

    assert.deepEqual(readdirSync(fs.mountpoint).sort(), ['synced-dir', 'unsynced-dir'], 'new-dir was never synced into the root');
    assert.deepEqual(readdirSync(at('synced-dir')), ['a']);
    assert.equal(readFileSync(at('synced-dir/a'), 'utf8'), 'a');
    assert.deepEqual(readdirSync(at('unsynced-dir')), []);
  });

  test('a rename or an unlink lasts once its directory is fsynced', async (t) => {
    const fs = await LazyFs.mount(t);
    const at = (name: string) => join(fs.mountpoint, name);
    for (const name of ['moved', 'removed', 'replaced']) write(at(name), name, { sync: 'fsync' });
    syncDir(fs.mountpoint);
    const rearrange = () => {
      renameSync(at('moved'), at('moved-to'));
      unlinkSync(at('removed'));
      write(at('replacement'), 'new', { sync: 'fsync' });
      renameSync(at('replacement'), at('replaced'));
    };
    rearrange();

    await cutAndRestart(fs);
    assert.deepEqual(readdirSync(fs.mountpoint).sort(), ['moved', 'removed', 'replaced']);
    assert.equal(readFileSync(at('replaced'), 'utf8'), 'replaced');

    rearrange();
    syncDir(fs.mountpoint);
    await cutAndRestart(fs);
    assert.deepEqual(readdirSync(fs.mountpoint).sort(), ['moved-to', 'replaced']);
    assert.equal(readFileSync(at('moved-to'), 'utf8'), 'moved');
    assert.equal(readFileSync(at('replaced'), 'utf8'), 'new');
  });

  test('a truncation lasts once the file is synced, and regrown bytes read as zeros', async (t) => {
    const fs = await LazyFs.mount(t);
    const file = join(fs.mountpoint, 'file');
    write(file, 'x'.repeat(10_000), { sync: 'fsync' });
    syncDir(fs.mountpoint);
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 10);
    closeSync(fd);

    await cutAndRestart(fs);
    assert.equal(readFileSync(file, 'utf8'), 'x'.repeat(10_000));

    const again = openSync(file, 'r+');
    ftruncateSync(again, 10);
    ftruncateSync(again, 5000);
    fsyncSync(again);
    closeSync(again);
    await cutAndRestart(fs);
    assert.equal(readFileSync(file, 'utf8'), 'x'.repeat(10) + '\0'.repeat(4990));
  });

  test('a slow sync counts once answered; one cut short by the power cut is lost', { timeout: 30_000 }, async (t) => {
    // Long enough that the cut lands before the held sync is answered, however loaded the machine.
    const delayMs = 1_000;
    const fs = await LazyFs.mount(t, { syncDelayMs: delayMs });
    const at = (name: string) => join(fs.mountpoint, name);
    write(at('answered'), 'kept');
    write(at('cut-short'), 'lost');
    const started = Date.now();
    syncFile(at('answered'));
    syncDir(fs.mountpoint);
    assert.ok(Date.now() - started >= 2 * (delayMs - 10), 'each sync waits for the delay');

    const handle = await open(at('cut-short'), 'r+');
    const held = fs.nextSyncHeld();
    const sync = handle.sync().then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    await held; // the sync has reached lazyfs, which waits before it answers
    await fs.powerCut();
    assert.notEqual(await sync, 'answered', 'a sync cut short reports an error');
    await handle.close().catch(() => undefined);
    await fs.start();

    assert.equal(readFileSync(at('answered'), 'utf8'), 'kept');
    assert.equal(readFileSync(at('cut-short'), 'utf8'), '');
  });

  test('files never synced vanish with their names, and their objects are removed', async (t) => {
    const fs = await LazyFs.mount(t);
    write(join(fs.mountpoint, 'orphan'), 'data', { sync: 'fsync' });
    assert.ok(existsSync(join(fs.backing, 'file-2')), 'the synced data is in the backing directory');

    await cutAndRestart(fs);

    assert.deepEqual(readdirSync(fs.mountpoint), []);
    assert.deepEqual(readdirSync(fs.backing), ['dir-1'], 'an object no synced name reaches is freed');
  });
});
