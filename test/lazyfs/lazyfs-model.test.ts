/**
 * lazyfs against a model of what a power cut may keep: random writes, truncations, renames,
 * unlinks and syncs of files and of their directory, then a cut, then every name and byte
 * compared. LAZYFS_SEED replays a run.
 */
import assert from 'node:assert/strict';
import { closeSync, constants, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readFileSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LazyFs, lazyFsSkip } from '../helpers/lazyfs.js';

const skip = await lazyFsSkip();

interface Inode {
  data: Buffer;
  /** What its last sync kept; undefined while nothing was. */
  synced: Buffer | undefined;
}

/** mulberry32: small, seedable, good enough to pick operations. */
function random(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

function withFd(path: string, run: (fd: number) => void): void {
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT);
  try {
    run(fd);
  } finally {
    closeSync(fd);
  }
}

function resized(data: Buffer, size: number): Buffer {
  return size <= data.length ? data.subarray(0, size) : Buffer.concat([data, Buffer.alloc(size - data.length)]);
}

test('lazyfs keeps exactly what was synced, over random operations and cuts', { skip }, async (t) => {
  const seed = Number(process.env.LAZYFS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const pick = random(seed);
  const fs = await LazyFs.mount(t);
  const names = ['a', 'b', 'c', 'd', 'e'];
  let live = new Map<string, Inode>();
  let durable = new Map<string, Inode>();
  const log: string[] = [];
  const at = (name: string) => join(fs.mountpoint, name);
  const expectFiles = (expected: Map<string, Buffer>, when: string) => {
    const context = `${when}, seed ${seed}, after: ${log.slice(-12).join('; ')}`;
    assert.deepEqual(readdirSync(fs.mountpoint).sort(), [...expected.keys()].sort(), context);
    for (const [name, data] of expected) assert.ok(readFileSync(at(name)).equals(data), `${name} differs ${context}`);
  };

  for (let cut = 0; cut < 5; cut++) {
    for (let step = 0; step < 300; step++) {
      const name = names[pick(names.length)] as string;
      const other = names[pick(names.length)] as string;
      const inode = live.get(name);
      const op = pick(10);
      if (op <= 2) {
        const offset = pick(3) * 4096 + pick(4200) - 100;
        const bytes = Buffer.alloc(1 + pick(5000), String.fromCharCode(97 + pick(26)));
        const position = Math.max(0, offset);
        withFd(at(name), (fd) => writeSync(fd, bytes, 0, bytes.length, position));
        const target = inode ?? { data: Buffer.alloc(0), synced: undefined };
        const data = resized(target.data, Math.max(target.data.length, position + bytes.length));
        bytes.copy(data, position);
        target.data = Buffer.from(data);
        live.set(name, target);
        log.push(`write ${name} ${position}+${bytes.length}`);
      } else if (op === 3 && inode) {
        const size = pick(13_000);
        withFd(at(name), (fd) => ftruncateSync(fd, size));
        inode.data = Buffer.from(resized(inode.data, size));
        log.push(`truncate ${name} ${size}`);
      } else if (op <= 5 && inode) {
        withFd(at(name), (fd) => (op === 4 ? fsyncSync(fd) : fdatasyncSync(fd)));
        inode.synced = Buffer.from(inode.data);
        log.push(`${op === 4 ? 'fsync' : 'fdatasync'} ${name}`);
      } else if (op === 6) {
        const fd = openSync(fs.mountpoint, 'r');
        fsyncSync(fd);
        closeSync(fd);
        for (const node of live.values()) node.synced ??= Buffer.alloc(0);
        durable = new Map(live);
        log.push('fsync the directory');
      } else if (op === 7 && inode) {
        renameSync(at(name), at(other));
        live.delete(name);
        live.set(other, inode);
        log.push(`rename ${name} ${other}`);
      } else if (op === 8 && inode) {
        unlinkSync(at(name));
        live.delete(name);
        log.push(`unlink ${name}`);
      }
    }
    expectFiles(new Map([...live].map(([name, node]) => [name, node.data])), `before cut ${cut}`);

    await fs.powerCut();
    await fs.start();
    log.push(`cut ${cut}`);
    const kept = new Map([...durable].map(([name, node]) => [name, node.synced ?? Buffer.alloc(0)]));
    expectFiles(kept, `after cut ${cut}`);
    live = new Map([...kept].map(([name, data]) => [name, { data, synced: data }]));
    durable = new Map(live);
  }
});
