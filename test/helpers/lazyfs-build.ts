/**
 * Compiles lazyfs (test/lazyfs/lazyfs.c) into build/lazyfs/ and checks, by mounting it once, that
 * FUSE works here. Where it does not, the tests that need it skip with the reason, unless
 * REQUIRE_FUSE=1 (CI), where they fail with it.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCE = join(ROOT, 'test', 'lazyfs', 'lazyfs.c');
const CFLAGS = ['-O2', '-Wall', '-Wextra'];

export type LazyFsBuild = { binary: string; reason?: undefined } | { reason: string };

function firstLine(error: unknown): string {
  const { stderr, message } = error as { stderr?: string; message?: string };
  return (stderr?.trim() || message || String(error)).split('\n')[0] ?? '';
}

/** Compiles once per source: the binary's name carries a digest of the source and flags. */
async function compile(): Promise<string> {
  let flags: string[];
  try {
    flags = (await run('pkg-config', ['--cflags', '--libs', 'fuse3'])).stdout.trim().split(/\s+/);
  } catch (error) {
    throw new Error(`libfuse3 is not installed (apt-get install fuse3 libfuse3-dev): ${firstLine(error)}`);
  }
  const source = readFileSync(SOURCE);
  const digest = createHash('sha256').update(source).update(CFLAGS.join(' ')).update(flags.join(' ')).digest('hex').slice(0, 12);
  const binary = join(ROOT, 'build', 'lazyfs', `lazyfs-${digest}`);
  if (existsSync(binary)) return binary;
  mkdirSync(join(ROOT, 'build', 'lazyfs'), { recursive: true });
  // Test files run in parallel: each compiles to its own name and renames into place.
  const partial = `${binary}.${process.pid}`;
  try {
    await run('gcc', [...CFLAGS, '-o', partial, SOURCE, ...flags]);
  } catch (error) {
    throw new Error(`gcc could not compile lazyfs: ${firstLine(error)}`);
  }
  renameSync(partial, binary);
  return binary;
}

/** Mounts lazyfs on a scratch directory, writes and reads a file, and unmounts. */
async function probe(binary: string): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'plantstore-lazyfs-probe-')));
  const mountpoint = join(root, 'mnt');
  mkdirSync(join(root, 'backing'));
  mkdirSync(mountpoint);
  const daemon = spawn(binary, [join(root, 'backing'), mountpoint], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(daemon, 'exit');
  let stderr = '';
  daemon.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      daemon.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('lazyfs: mounted') ? resolve() : undefined));
      void exited.then(() => reject(new Error(`lazyfs could not mount: ${stderr.trim().split('\n')[0]}`)));
    });
    writeFileSync(join(mountpoint, 'probe'), 'ok');
    if (readFileSync(join(mountpoint, 'probe'), 'utf8') !== 'ok') throw new Error('lazyfs mounted but did not read back a write');
  } finally {
    daemon.kill('SIGKILL');
    await exited;
    await detach(mountpoint);
    if (!isMounted(mountpoint)) rmSync(root, { recursive: true, force: true });
  }
}

function whyNoFuse(): string | undefined {
  if (process.platform !== 'linux') return 'FUSE tests run on Linux only';
  try {
    accessSync('/dev/fuse', constants.R_OK | constants.W_OK);
  } catch {
    return 'no /dev/fuse, or no access to it';
  }
  if (process.getuid?.() !== 0 && !existsSync('/usr/bin/fusermount3') && !existsSync('/bin/fusermount3')) {
    return 'not root, and no fusermount3 to mount as a user';
  }
  return undefined;
}

let built: Promise<LazyFsBuild> | undefined;

/** The compiled lazyfs, or why it cannot run here. Compiles and probes once per process. */
export function buildLazyFs(): Promise<LazyFsBuild> {
  built ??= (async () => {
    const reason = whyNoFuse();
    if (reason !== undefined) return { reason };
    try {
      const binary = await compile();
      await probe(binary);
      return { binary };
    } catch (error) {
      return { reason: (error as Error).message };
    }
  })();
  return built;
}

/**
 * The `skip` option for a test that needs lazyfs: the reason it cannot run, or false. With
 * REQUIRE_FUSE=1 it is always false, so the test runs and LazyFs.mount fails with the reason.
 */
export async function lazyFsSkip(): Promise<string | false> {
  const build = await buildLazyFs();
  if (build.reason === undefined || process.env.REQUIRE_FUSE === '1') return false;
  process.stdout.write(`lazyfs tests skipped: ${build.reason}\n`);
  return build.reason;
}

/** Whether something is mounted at `path` (mountinfo's fifth field, spaces escaped as \040). */
export function isMounted(path: string): boolean {
  const escaped = path.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[4] === escaped);
}

/** Removes a mount whose daemon is gone (lazily, so a process still inside cannot hold it). */
export async function detach(mountpoint: string): Promise<void> {
  for (const [command, args] of [
    ['fusermount3', ['-u', '-z', mountpoint]],
    ['umount', ['-l', mountpoint]],
  ] as const) {
    if (!isMounted(mountpoint)) return;
    await run(command, [...args]).catch(() => undefined);
  }
  if (isMounted(mountpoint)) throw new Error(`could not unmount ${mountpoint}`);
}
