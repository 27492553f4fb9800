/**
 * The package as a user gets it: the bin stays runnable after a rebuild; `npm pack` ships a
 * LICENSE, source maps whose sources it also ships, and no install-time script of its own;
 * the tarball installs into an empty folder without questions and serves, both through npx
 * and through the systemd unit's ExecStart.
 *
 * All of it runs in a copy of the project (its node_modules linked), so that rebuilding there
 * never touches the build the other tests are running from.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test, type TestContext } from 'node:test';
import { PROJECT, QUIET_NPM, localPrebuild } from '../helpers/native-prebuild.js';
import { unprivileged } from '../helpers/unprivileged.js';

const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')) as { version: string };

/** The allowScripts policy docs/operations.md tells an operator to put beside the install. */
const INSTALL_POLICY = { private: true, allowScripts: { 'better-sqlite3': true, '@scarf/scarf': false } };

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** Starts a serving process and resolves with its URL from the "listening" log line. */
async function serving(t: TestContext, command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /"url":"(http:[^"]+)".*plantstore is listening/.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exited.then(([code]) => reject(new Error(`exited with ${code} before listening: ${stderr}`)));
  });
  return { child, url, exited, stderr: () => stderr };
}

describe('the plantstore package', () => {
  let copy = '';
  let tarball = '';

  after(() => rmSync(copy, { recursive: true, force: true }));
  before(() => {
    copy = mkdtempSync(join(tmpdir(), 'plantstore-package-'));
    for (const name of ['package.json', 'package-lock.json', 'tsconfig.json', 'LICENSE', 'README.md', 'src', 'deploy']) {
      cpSync(join(PROJECT, name), join(copy, name), { recursive: true });
    }
    symlinkSync(join(PROJECT, 'node_modules'), join(copy, 'node_modules'));
  });

  test('after `npm run clean` and `npm run build` (as npm test does), the bin runs by itself', { timeout: 120_000 }, async () => {
    await run('npm', ['run', 'clean'], { cwd: copy });
    await run('npm', ['run', 'build'], { cwd: copy, timeout: 110_000 });
    const { stdout } = await run(join(copy, 'build', 'src', 'cli.js'), ['--version']);
    assert.equal(stdout, `${version}\n`);
  });

  test('npm pack ships a LICENSE, every file a source map points at, and no install-time script', { timeout: 120_000 }, async () => {
    const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', copy], { cwd: copy, timeout: 110_000, env: { ...process.env, ...QUIET_NPM } });
    tarball = join(copy, stdout.trim().split('\n').at(-1) ?? '');
    const unpacked = join(copy, 'unpacked');
    mkdirSync(unpacked);
    await run('tar', ['-xzf', tarball, '-C', unpacked]);
    const root = join(unpacked, 'package');
    const shipped = new Set(files(root));

    assert.ok(shipped.has('LICENSE'));
    assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) 2026 the plantstore authors\n/);
    assert.ok(shipped.has('build/src/cli.js'));
    assert.ok(shipped.has('deploy/plantstore.service'), 'the systemd unit');
    assert.ok(![...shipped].some((file) => file.startsWith('build/test/') || file.startsWith('build/bench/')), 'no tests or benchmark');

    const maps = [...shipped].filter((file) => file.endsWith('.map'));
    assert.ok(maps.length > 0);
    for (const file of [...shipped].filter((name) => name.endsWith('.js'))) {
      const reference = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(root, file), 'utf8'))?.[1];
      if (reference !== undefined) assert.ok(shipped.has(join(dirname(file), reference)), `${file} points at a shipped map`);
    }
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(root, map), 'utf8')) as { sources: string[] };
      for (const source of sources) assert.ok(shipped.has(join(dirname(map), source)), `${map} points at ${source}, which is shipped`);
    }

    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(manifest.scripts?.[script], undefined, `no ${script} script`);
  });

  test('the tarball installs into an empty folder without questions, and serves through npx and the systemd unit', { timeout: 240_000 }, async (t) => {
    assert.ok(existsSync(tarball), 'the tarball from the previous test');
    const opt = join(copy, 'opt', 'plantstore');
    mkdirSync(opt, { recursive: true });
    writeFileSync(join(opt, 'package.json'), `${JSON.stringify(INSTALL_POLICY, null, 2)}\n`);
    const npmEnv = { ...process.env, ...QUIET_NPM, ...localPrebuild(copy) };
    const install = spawn('npm', ['install', tarball], { cwd: opt, env: npmEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    install.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    install.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(install, 'exit')) as [number | null];
    assert.equal(code, 0, output);
    assert.doesNotMatch(output, /install-scripts|approve|allowScripts/, `no question and no notice about install scripts: ${output}`);
    assert.ok(existsSync(join(opt, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')), 'better-sqlite3 was installed by its own script');

    const { stdout: printed } = await run('npx', ['--no', '--', 'plantstore', '--version'], { cwd: opt, env: npmEnv });
    assert.equal(printed, `${version}\n`);

    const data = join(copy, 'npx-data');
    const viaNpx = await serving(t, 'npx', ['--no', '--', 'plantstore', 'serve', '--port', '0', '--database-url', `sqlite:${data}/p.db`], { cwd: opt, env: npmEnv });
    assert.equal((await fetch(`${viaNpx.url}/healthz`)).status, 200);
    process.kill(-(viaNpx.child.pid as number), 'SIGTERM');
    await viaNpx.exited;

    // The systemd unit, with /opt/plantstore and its state folder moved under this test's folder.
    const unit = readFileSync(join(PROJECT, 'deploy', 'plantstore.service'), 'utf8');
    const setting = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1] as string);
    const state = join(copy, 'var-lib-plantstore');
    mkdirSync(state);
    chmodSync(copy, 0o755);
    const as = unprivileged();
    const wrapper = as.reason === undefined ? as.wrapper : [];
    if (as.reason === undefined && as.uid !== undefined) await run('chown', [String(as.uid), state]);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
    for (const line of setting('Environment')) {
      const [key = '', ...value] = line.split('=');
      env[key] = value.join('=').replace('/var/lib/plantstore', state);
    }
    assert.equal(env.HOST, '127.0.0.1');
    env.PORT = '0';
    const [execStart = ''] = setting('ExecStart');
    const [node = '', ...args] = execStart.replaceAll('/opt/plantstore', opt).split(' ');
    assert.ok(existsSync(node), `${node} exists`);
    const [workingDirectory = ''] = setting('WorkingDirectory');
    const viaUnit = await serving(t, wrapper[0] ?? node, [...wrapper.slice(1), ...(wrapper.length > 0 ? [node] : []), ...args], {
      cwd: workingDirectory.replace('/opt/plantstore', opt),
      env,
    });
    assert.equal((await fetch(`${viaUnit.url}/healthz`)).status, 200);
    assert.ok(existsSync(join(state, 'plantstore.db')), 'the database is in the state folder');
    viaUnit.child.kill(setting('KillSignal')[0] as NodeJS.Signals);
    assert.deepEqual(await viaUnit.exited, [0, null]);
  });
});
