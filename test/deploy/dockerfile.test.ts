/**
 * The Dockerfile, without a container runtime: its build steps are replayed in a temporary
 * folder, stage by stage (COPY copies, npm commands run as written), then the image's start
 * command runs as an unprivileged user with the image's environment, must serve /readyz, pass
 * the HEALTHCHECK command and drain on the STOPSIGNAL.
 *
 * Differences from a real build, each printed: the apt-get step is skipped (it installs
 * compilers; better-sqlite3's install script gets this checkout's compiled binary as a local
 * prebuild, see native-prebuild.ts); node and npm are the host's; absolute paths such as /data
 * live under the stage's folder; and HOST is 127.0.0.1 instead of the image's 0.0.0.0, so that
 * the test listens on loopback only.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { execForm, parseDockerfile, parseEnv } from '../helpers/dockerfile.js';
import { PROJECT, QUIET_NPM, localPrebuild } from '../helpers/native-prebuild.js';
import { freePort, startServerProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';
import { unprivileged } from '../helpers/unprivileged.js';

const run = promisify(execFile);

interface Image {
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  volumes: string[];
  command: string[];
  healthcheck: string | undefined;
  stopSignal: string | undefined;
}

/** Replays every stage; returns the last one, as the image. */
async function build(work: string, buildEnv: NodeJS.ProcessEnv, runUid: number | undefined): Promise<Image> {
  const stages = parseDockerfile(readFileSync(join(PROJECT, 'Dockerfile'), 'utf8'));
  assert.ok(stages.length >= 2, 'a multi-stage build');
  const roots = new Map<string, string>();
  let image: Image | undefined;
  for (const [index, stage] of stages.entries()) {
    const root = join(work, `stage-${index}`);
    mkdirSync(root, { recursive: true });
    if (stage.name !== undefined) roots.set(stage.name, root);
    const current: Image = { root, workdir: '/', env: {}, user: undefined, volumes: [], command: [], healthcheck: undefined, stopSignal: undefined };
    let entrypoint: string[] = [];
    let cmd: string[] = [];
    const inStage = (path: string) => join(root, path.startsWith('/') ? path : join(current.workdir, path));
    for (const { keyword, args } of stage.instructions) {
      switch (keyword) {
        case 'WORKDIR':
          current.workdir = args;
          mkdirSync(inStage('.'), { recursive: true });
          break;
        case 'COPY': {
          const parts = args.split(/\s+/);
          const from = parts[0]?.startsWith('--from=') ? parts.shift()?.slice('--from='.length) : undefined;
          const destination = parts.pop() as string;
          for (const source of parts) {
            const origin = from === undefined ? join(PROJECT, source) : join(roots.get(from) ?? assert.fail(`no stage ${from}`), source);
            const target = destination.endsWith('/') ? join(inStage(destination), basename(source)) : inStage(destination);
            cpSync(origin, target, { recursive: true, verbatimSymlinks: true });
          }
          break;
        }
        case 'RUN':
          if (args.startsWith('apt-get ')) {
            process.stdout.write(`# replay skips: RUN ${args.slice(0, 60)}… (compilers; better-sqlite3 gets a local prebuild)\n`);
          } else if (args.startsWith('npm ')) {
            await run('sh', ['-c', args], { cwd: inStage('.'), env: buildEnv, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
          } else if (args === 'mkdir /data && chown node:node /data') {
            mkdirSync(inStage('/data'));
            if (runUid !== undefined) chownSync(inStage('/data'), runUid, runUid);
          } else {
            assert.fail(`the replay does not know this step yet: RUN ${args}`);
          }
          break;
        case 'ENV':
          Object.assign(current.env, parseEnv(args));
          break;
        case 'USER':
          current.user = args;
          break;
        case 'VOLUME':
          current.volumes.push(...args.split(/\s+/));
          break;
        case 'HEALTHCHECK':
          current.healthcheck = args;
          break;
        case 'STOPSIGNAL':
          current.stopSignal = args;
          break;
        case 'ENTRYPOINT':
          entrypoint = execForm(args);
          break;
        case 'CMD':
          cmd = execForm(args);
          break;
        case 'EXPOSE':
          break;
        default:
          assert.fail(`the replay does not know ${keyword}`);
      }
    }
    current.command = [...entrypoint, ...cmd];
    image = current;
  }
  return image as Image;
}

test('the Dockerfile builds an image that serves /readyz as a non-root user and drains on its STOPSIGNAL', { timeout: 360_000 }, async (t) => {
  const as = unprivileged();
  const wrapper = as.reason === undefined ? as.wrapper : [];
  const runUid = as.reason === undefined ? as.uid : undefined;
  if (as.reason !== undefined) process.stdout.write(`# the image's command runs as this test's user: ${as.reason}\n`);

  const work = tempDir(t);
  chmodSync(work, 0o755);
  const buildEnv = { ...process.env, ...QUIET_NPM, ...localPrebuild(work) };
  const image = await build(work, buildEnv, runUid);

  assert.ok(image.user !== undefined && image.user !== 'root' && image.user !== '0', `USER is not root: ${image.user}`);
  assert.equal(image.env.HOST, '0.0.0.0');
  assert.ok(image.volumes.includes('/data'), 'a volume for the data');
  assert.match(image.env.DATABASE_URL ?? '', /^sqlite:\/data\//);
  assert.equal(image.stopSignal, 'SIGTERM');
  assert.match(image.healthcheck ?? '', /\/readyz/);
  const app = join(image.root, image.workdir);
  assert.ok(!existsSync(join(app, 'node_modules', 'typescript')), 'dev dependencies are not in the image');
  assert.ok(existsSync(join(app, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')));

  const port = await freePort();
  const database = join(image.root, (image.env.DATABASE_URL ?? '').slice('sqlite:'.length));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...image.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: `sqlite:${database}` };
  const [command = 'node', ...args] = [...wrapper, ...image.command];
  const child = spawn(command, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();

  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((response) => response.status, () => 0);
    if (ready === 200) break;
    assert.ok(Date.now() < deadline && child.exitCode === null, `the image serves /readyz: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (runUid !== undefined) {
    assert.match(readFileSync(`/proc/${child.pid}/status`, 'utf8'), new RegExp(`^Uid:\\s+${runUid}\\s`, 'm'), 'the server runs unprivileged');
    assert.equal(statSync(database).uid, runUid, 'the database belongs to the run user');
  }
  // The token is made once the server listens, so it may follow the first /readyz by a moment.
  const token = /^ {4}pst_[A-Za-z0-9_-]{43}$/m;
  while (!token.test(stderr) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.match(stderr, token, 'the first start prints the admin token in the logs');

  const [checkCommand = 'node', ...checkArgs] = [...wrapper, ...execForm(image.healthcheck ?? '')];
  await run(checkCommand, checkArgs, { cwd: app, env, timeout: 10_000 }); // rejects on a non-zero exit

  child.kill(image.stopSignal as NodeJS.Signals);
  const [code, signal] = await exited;
  assert.deepEqual([code, signal], [0, null]);
});

/** The HEALTHCHECK command of the image's stage, as an argument list. */
function healthcheck(): string[] {
  const stages = parseDockerfile(readFileSync(join(PROJECT, 'Dockerfile'), 'utf8'));
  const check = stages.at(-1)?.instructions.find((instruction) => instruction.keyword === 'HEALTHCHECK');
  assert.ok(check !== undefined, 'a HEALTHCHECK');
  return execForm(check.args);
}

/** Runs the HEALTHCHECK with the image's HOST and PORT: undefined when it passes, else what it said. */
async function probe(host: string, port: string): Promise<string | undefined> {
  const [command = 'node', ...args] = healthcheck();
  return run(command, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOST: host, PORT: port }, timeout: 10_000 }).then(
    () => undefined,
    (error: { stderr?: string; code?: unknown }) => `exit ${String(error.code)}: ${error.stderr ?? ''}`,
  );
}

for (const host of ['127.0.0.2', '::1']) {
  test(`the HEALTHCHECK asks the address HOST names: ${host}`, async (t) => {
    const server = await startServerProcess(t, { HOST: host, DATABASE_URL: `sqlite:${join(tempDir(t), 'p.db')}`, BOOTSTRAP_TOKEN: 'false' });
    const { port } = new URL(server.url);
    assert.equal(await probe(host, port), undefined, 'healthy');
  });
}

test('the HEALTHCHECK asks loopback when HOST is every address or unset, and fails when nothing answers', async (t) => {
  const server = await startServerProcess(t, { HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(tempDir(t), 'p.db')}`, BOOTSTRAP_TOKEN: 'false' });
  const { port } = new URL(server.url);
  for (const host of ['0.0.0.0', '::', '']) assert.equal(await probe(host, port), undefined, `healthy with HOST=${JSON.stringify(host)}`);
  assert.match((await probe('127.0.0.2', port)) ?? 'passed', new RegExp(`^exit 1: http://127\\.0\\.0\\.2:${port}/readyz: ECONNREFUSED`), 'unhealthy where nothing listens, and says why');
});
