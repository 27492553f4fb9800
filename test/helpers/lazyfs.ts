/**
 * Mounts lazyfs (test/lazyfs/lazyfs.c), the FUSE filesystem of the power-loss tests, and cuts
 * its power: whatever was not fsynced through it is gone when it is mounted again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { buildLazyFs, detach, isMounted } from './lazyfs-build.js';

export { lazyFsSkip } from './lazyfs-build.js';

export interface LazyFsOptions {
  /** Each fsync is answered this long after it was asked, like a slow disk's; 0 answers at once. */
  syncDelayMs?: number;
}

export class LazyFs {
  private daemon: ChildProcess | undefined;
  private exited: Promise<unknown> = Promise.resolve();
  private readonly events = new EventEmitter();

  private constructor(
    private readonly binary: string,
    /** Where the durable image lives: what survives a power cut. */
    readonly backing: string,
    /** Where the filesystem is mounted. */
    readonly mountpoint: string,
    private readonly options: LazyFsOptions,
  ) {}

  /** Mounts a fresh lazyfs; the test's end cuts it and removes its directories. Fails when FUSE cannot mount. */
  static async mount(t: TestContext, options: LazyFsOptions = {}): Promise<LazyFs> {
    const build = await buildLazyFs();
    if (build.reason !== undefined) throw new Error(`lazyfs cannot run: ${build.reason}`);
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'plantstore-lazyfs-')));
    const fs = new LazyFs(build.binary, join(root, 'backing'), join(root, 'mnt'), options);
    mkdirSync(fs.backing);
    mkdirSync(fs.mountpoint);
    t.after(async () => {
      await fs.powerCut();
      // Never recurse into a mount that is still there.
      if (!isMounted(fs.mountpoint)) rmSync(root, { recursive: true, force: true });
    });
    await fs.start();
    return fs;
  }

  /** Starts lazyfs over the backing directory: it serves exactly what was synced. */
  async start(): Promise<void> {
    if (this.daemon !== undefined) throw new Error('lazyfs is already mounted');
    const args = ['--sync-delay-ms', String(this.options.syncDelayMs ?? 0), this.backing, this.mountpoint];
    const daemon = spawn(this.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.daemon = daemon;
    this.exited = once(daemon, 'exit');
    let stderr = '';
    daemon.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      let partial = '';
      daemon.stdout.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (line.startsWith('lazyfs: mounted')) resolve();
          else if (line === 'lazyfs: sync held') this.events.emit('sync held');
        }
      });
      void this.exited.then(() => reject(new Error(`lazyfs exited before mounting: ${stderr.trim()}`)));
    });
  }

  /** Resolves when lazyfs next holds a sync for its delay: the sync has reached it and is not answered yet. */
  nextSyncHeld(): Promise<void> {
    return once(this.events, 'sync held').then(() => undefined);
  }

  /**
   * Cuts the power: kills lazyfs at once (SIGKILL, sent before this returns its promise, so a
   * caller can kill other processes right after it in the same instant), then removes the dead
   * mount. A sync not yet answered is lost with everything else that was not synced.
   */
  powerCut(): Promise<void> {
    const daemon = this.daemon;
    this.daemon = undefined;
    if (daemon !== undefined && daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
    return this.exited.then(() => detach(this.mountpoint));
  }
}
