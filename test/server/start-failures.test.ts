/**
 * Every start that cannot succeed ends with one line on stderr naming the cause and the
 * setting to change, exit status 1 and no stack trace; PostgreSQL retries are one short line.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import { StoreUnavailableError } from '../../src/errors.js';
import { StartError, asStartError, isPermanentDatabaseFailure } from '../../src/start-failure.js';
import { CLI, freePort, runCli, startServerProcess, type CliResult } from '../helpers/process.js';
import { postgresAskingPassword, postgresWithoutTls, postgresWithTls, refusingPostgres } from '../helpers/refusing-postgres.js';
import { postgresUrlOrSkipReason, tempDir } from '../helpers/server.js';
import { unprivileged } from '../helpers/unprivileged.js';
import { storeFactories } from '../store/store-factories.js';

const postgres = postgresUrlOrSkipReason();

/** Mounting a read-only file system needs root on Linux, and a container may refuse it even to root: tried once. */
function readOnlyMountSkipReason(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'mounting a read-only tmpfs needs root on Linux';
  const probe = mkdtempSync(join(tmpdir(), 'plantstore-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe]);
    return undefined;
  } catch {
    return 'this machine does not let root mount a tmpfs';
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** The one line of a failed start, after checking that there is nothing else. */
function onlyLine(result: CliResult): string {
  assert.equal(result.code, 1, result.stderr);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /\n\s+at |Error:/, 'no stack trace');
  assert.doesNotMatch(result.stdout, /pst_/);
  return lines[0] ?? '';
}

/** Whether something accepts connections on `port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function occupiedPort(t: TestContext): Promise<number> {
  const blocker: Server = createServer();
  blocker.listen(0, '127.0.0.1');
  await once(blocker, 'listening');
  t.after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  return (blocker.address() as AddressInfo).port;
}

describe('a start that cannot listen', () => {
  test('a port in use: one line naming PORT and --port, exit 1, and the first-start token is not spent', async (t) => {
    const port = await occupiedPort(t);
    const databaseUrl = `sqlite:${join(tempDir(t), 'busy.db')}`;
    const line = onlyLine(await runCli(['serve', '--port', String(port)], { DATABASE_URL: databaseUrl }));
    assert.match(line, new RegExp(`^plantstore: cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use .*PORT or --port$`));

    const next = await startServerProcess(t, { DATABASE_URL: databaseUrl });
    assert.match(next.stderr(), /^ {4}pst_[A-Za-z0-9_-]{43}$/m, 'the next start prints the admin token');
  });

  test('a port in use under --workers 2: the supervisor prints the line once and exits 1', async (t) => {
    const port = await occupiedPort(t);
    const result = await runCli(['serve', '--workers', '2', '--port', String(port)], { DATABASE_URL: `sqlite:${join(tempDir(t), 'w.db')}` });
    assert.match(onlyLine(result), /cannot listen on 127\.0\.0\.1:\d+: the port is in use .*PORT or --port$/);
  });

  test('an address that is not of this machine: one line naming HOST and --host', async (t) => {
    const result = await runCli(['serve', '--port', '0', '--host', '192.0.2.1'], { DATABASE_URL: `sqlite:${join(tempDir(t), 'a.db')}` });
    assert.match(onlyLine(result), /^plantstore: cannot listen on 192\.0\.2\.1:0: 192\.0\.2\.1 is not an address of this machine; set HOST or --host/);
  });

  test('an IPv6 address is named in brackets, its port apart', () => {
    const error = Object.assign(new Error('listen EADDRNOTAVAIL'), { code: 'EADDRNOTAVAIL', syscall: 'listen', address: '2001:db8::5', port: 8080 });
    const explained = asStartError(error, { databaseUrl: 'sqlite:x.db', host: '2001:db8::5', port: 8080 });
    assert.ok(explained instanceof StartError);
    assert.match(explained.message, /^cannot listen on \[2001:db8::5\]:8080: 2001:db8::5 is not an address of this machine/);
  });

  test('a host name that does not resolve: one line naming HOST and --host', async (t) => {
    const result = await runCli(['serve', '--port', '0', '--host', 'no-such-host.invalid'], { DATABASE_URL: `sqlite:${join(tempDir(t), 'a.db')}` });
    assert.match(onlyLine(result), /^plantstore: cannot listen on no-such-host\.invalid: the name does not resolve \((ENOTFOUND|EAI_AGAIN)\); set HOST or --host/);
  });

  test('a database host name that does not resolve is blamed on DATABASE_URL, not on HOST', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: 'postgres://app:s3cret@db.no-such-host.invalid:5432/plants' });
    const line = onlyLine(result);
    assert.match(line, /^plantstore: cannot use the database: PostgreSQL at db\.no-such-host\.invalid:5432 is unreachable \((ENOTFOUND|EAI_AGAIN)\); check the host and port in DATABASE_URL/);
    assert.doesNotMatch(line, /HOST|s3cret/);
  });
});

describe('a data folder that cannot be used', () => {
  const as = unprivileged();

  test('a path through a file: one line naming DATABASE_URL', async (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'file'), '');
    const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: `sqlite:${join(dir, 'file', 'data', 'p.db')}` });
    assert.match(onlyLine(result), /^plantstore: cannot use the database: cannot create the data folder .*ENOTDIR.*DATABASE_URL/);
  });

  test('a folder this user may not write: one line naming DATABASE_URL', { skip: as.reason }, async (t) => {
    const dir = tempDir(t);
    chmodSync(dir, 0o755);
    const wrapper = as.reason === undefined ? as.wrapper : [];
    if (wrapper.length === 0) chmodSync(dir, 0o555);
    const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` }, wrapper);
    assert.match(onlyLine(result), /^plantstore: cannot use the database: cannot open .*p\.db \(SQLITE_CANTOPEN\).*DATABASE_URL/);
    assert.ok(!existsSync(join(dir, 'p.db')));
  });

  test('a folder on a read-only file system: one line saying so', { skip: readOnlyMountSkipReason() }, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'plantstore-ro-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir]);
    t.after(() => {
      try {
        execFileSync('umount', [dir]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
    const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` });
    assert.match(onlyLine(result), /^plantstore: cannot use the database: cannot open .*p\.db \(SQLITE_CANTOPEN\): its folder is on a read-only file system .*ReadWritePaths=.*DATABASE_URL/);
  });

  test('a database this user may write in a folder it may not: one line naming DATABASE_URL', { skip: as.reason }, async (t) => {
    const dir = tempDir(t);
    const file = join(dir, 'p.db');
    assert.equal((await runCli(['migrate'], { DATABASE_URL: `sqlite:${file}` })).code, 0);
    chmodSync(file, 0o666);
    chmodSync(dir, 0o755);
    const wrapper = as.reason === undefined ? as.wrapper : [];
    if (wrapper.length === 0) chmodSync(dir, 0o555);
    const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: `sqlite:${file}` }, wrapper);
    assert.match(onlyLine(result), /^plantstore: cannot use the database: .*p\.db or its folder is read-only for this user \(SQLITE_READONLY\w*\).*DATABASE_URL/);
  });

  test('a missing folder that this user may not create: one line naming DATABASE_URL', { skip: as.reason }, async (t) => {
    const dir = tempDir(t);
    chmodSync(dir, 0o755);
    const wrapper = as.reason === undefined ? as.wrapper : [];
    if (wrapper.length === 0) chmodSync(dir, 0o555);
    const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: `sqlite:${join(dir, 'missing', 'p.db')}` }, wrapper);
    assert.match(onlyLine(result), /^plantstore: cannot use the database: cannot create the data folder .*missing .*EACCES.*DATABASE_URL/);
  });
});

describe('the line for an error as the drivers give it', () => {
  const sqlite = { databaseUrl: 'sqlite:/srv/plantstore/p.db', host: '127.0.0.1', port: 8080 };

  /** The line asStartError makes of `error`, which must be one. */
  function lineFor(error: unknown, settings: { databaseUrl: string; host: string; port: number }): string {
    const explained = asStartError(error, settings);
    assert.ok(explained instanceof StartError, `explained: ${String(explained)}`);
    return explained.message;
  }

  const sqliteError = (code: string, message = 'unable to open database file') => Object.assign(new Error(message), { code });

  test("SQLite's extended codes are read as their primary one", () => {
    // better-sqlite3 gives the extended code where SQLite has one.
    assert.match(lineFor(sqliteError('SQLITE_CANTOPEN_ISDIR'), sqlite), /^cannot use the database: cannot open \/srv\/plantstore\/p\.db \(SQLITE_CANTOPEN_ISDIR\): it must be a file/);
    assert.match(lineFor(sqliteError('SQLITE_READONLY_DIRECTORY', 'attempt to write a readonly database'), sqlite), /^cannot use the database: \/srv\/plantstore\/p\.db or its folder is read-only for this user \(SQLITE_READONLY_DIRECTORY\)/);
  });

  test('a file that cannot be opened is blamed on a read-only file system only when its folder is on one', (t) => {
    // A folder this user can write, and one that does not exist: neither is on a read-only file system.
    for (const folder of [tempDir(t), join(tempDir(t), 'missing')]) {
      const line = lineFor(sqliteError('SQLITE_CANTOPEN'), { ...sqlite, databaseUrl: `sqlite:${join(folder, 'p.db')}` });
      assert.match(line, /\(SQLITE_CANTOPEN\): it must be a file, in a folder that exists and that this user can write/, folder);
      assert.doesNotMatch(line, /read-only file system/, folder);
    }
  });

  test('a database another process kept locked past the busy timeout is said to be locked, not misplaced', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_RECOVERY']) {
      assert.match(lineFor(sqliteError(code, 'database is locked'), sqlite), new RegExp(`^cannot use the database: /srv/plantstore/p\\.db stayed locked by another process for 5 s \\(${code}\\): a server, a backup or a restore; stop it or wait for it`));
    }
  });

  test('a damaged database file, whichever of the two codes SQLite gives, says to restore a backup', () => {
    for (const code of ['SQLITE_NOTADB', 'SQLITE_CORRUPT']) {
      assert.match(lineFor(sqliteError(code, 'database disk image is malformed'), sqlite), new RegExp(`^cannot use the database: /srv/plantstore/p\\.db is not a readable SQLite database \\(${code}\\); restore it from a backup`));
    }
  });

  test('any other SQLite failure is one line with its code and message, naming DATABASE_URL', () => {
    assert.equal(
      lineFor(sqliteError('SQLITE_IOERR_SHORT_READ', 'disk I/O error'), sqlite),
      'cannot use the database: SQLite failed on /srv/plantstore/p.db (SQLITE_IOERR_SHORT_READ: disk I/O error); fix that, or set DATABASE_URL to sqlite:<path> in a folder this user can write',
    );
  });

  test('a PostgreSQL URL without host or port names the server pg connects to: localhost:5432', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const error = new StoreUnavailableError('the database is unavailable', { cause: refused });
    assert.equal(
      lineFor(error, { databaseUrl: 'postgres:///plants', host: '127.0.0.1', port: 8080 }),
      'cannot use the database: PostgreSQL at localhost:5432 is unreachable (ECONNREFUSED); check the host and port in DATABASE_URL and that the server runs',
    );
  });

  test('a certificate for another host name is a TLS refusal: the start stops at once, saying so', () => {
    const mismatch = Object.assign(new Error("Hostname/IP does not match certificate's altnames: Host: db.example. is not in the cert's altnames: DNS:other.example"), {
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    const error = new StoreUnavailableError('the database is unavailable', { cause: mismatch });
    assert.ok(isPermanentDatabaseFailure(error), 'waiting will not change the certificate');
    assert.match(
      lineFor(error, { databaseUrl: 'postgres://app:s3cret@db.example:5432/plants?sslmode=verify-full', host: '127.0.0.1', port: 8080 }),
      /^cannot use the database: PostgreSQL at db\.example:5432 sent a TLS certificate that fails verification \(ERR_TLS_CERT_ALTNAME_INVALID: /,
    );
  });

  test('a connection error is not taken for one PostgreSQL sent: an unreachable server is said to be unreachable', () => {
    // node's errors carry a string code too, but no severity: only the server's do.
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:5433'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect', address: '10.0.0.9', port: 5433 });
    const error = new StoreUnavailableError('the database is unavailable', { cause: refused });
    assert.equal(isPermanentDatabaseFailure(error), false);
    assert.equal(
      lineFor(error, { databaseUrl: 'postgres://app@10.0.0.9:5433/plants', host: '127.0.0.1', port: 8080 }),
      'cannot use the database: PostgreSQL at 10.0.0.9:5433 is unreachable (ECONNREFUSED); check the host and port in DATABASE_URL and that the server runs',
    );
  });
});

describe('PostgreSQL refusing the start', () => {
  const refusals: [string, string, string, RegExp][] = [
    ['a database that does not exist', '3D000', 'database "plants" does not exist', /has no database "plants" \(3D000\); create it .*DATABASE_URL$/],
    ['a wrong password (or a user that does not exist)', '28P01', 'password authentication failed for user "app"', /refused the password of user "app" \(28P01\); fix the user name or password in DATABASE_URL$/],
    ['a role that does not exist', '28000', 'role "app" does not exist', /refused user "app" \(28000: role "app" does not exist\); fix the user in DATABASE_URL/],
    ['a setting the server does not know', '42704', 'unrecognized configuration parameter "foo"', /failed \(42704: unrecognized configuration parameter "foo"\)$/],
  ];
  for (const [name, code, message, expected] of refusals) {
    test(`${name} (${code}) stops the start at once with one line, the password never shown`, async (t) => {
      const port = await refusingPostgres(t, code, message);
      const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${port}/plants` });
      const line = onlyLine(result);
      assert.match(line, new RegExp(`^plantstore: cannot use the database: PostgreSQL at 127\\.0\\.0\\.1:${port} `));
      assert.match(line, expected);
      assert.doesNotMatch(result.stderr + result.stdout, /s3cret/);
      assert.doesNotMatch(result.stdout, /retrying the start/);
    });
  }

  test('a refused login without a password in DATABASE_URL says that none was given', async (t) => {
    const port = await refusingPostgres(t, '28P01', 'password authentication failed for user "app"');
    const line = onlyLine(await runCli(['migrate'], { DATABASE_URL: `postgres://app@127.0.0.1:${port}/plants` }));
    assert.equal(line, `plantstore: cannot use the database: PostgreSQL at 127.0.0.1:${port} asks for a password, and DATABASE_URL has none; add it (postgres://user:password@host/database)`);
  });

  test('the server and user of a refusal are read as pg reads the URL: from the query too', async (t) => {
    const port = await refusingPostgres(t, '28P01', 'password authentication failed for user "app"');
    const line = onlyLine(await runCli(['migrate'], { DATABASE_URL: `postgres:///plants?host=127.0.0.1&port=${port}&user=app&password=s3cret` }));
    assert.match(line, new RegExp(`^plantstore: cannot use the database: PostgreSQL at 127\\.0\\.0\\.1:${port} refused the password of user "app" \\(28P01\\)`));
    assert.doesNotMatch(line, /s3cret/);
  });

  test('a user the server takes only over TLS: the line says to set sslmode', async (t) => {
    const port = await refusingPostgres(t, '28000', 'pg_hba.conf rejects connection for host "127.0.0.1", user "app", database "plants", no encryption');
    const line = onlyLine(await runCli(['migrate'], { DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${port}/plants` }));
    assert.match(line, /refused user "app" without TLS \(28000: .*no encryption\); set sslmode=verify-full in DATABASE_URL/);
  });

  test("DATABASE_URL's password is the one sent to a server that asks for it", async (t) => {
    const { port, passwords } = await postgresAskingPassword(t);
    const line = onlyLine(await runCli(['migrate'], { DATABASE_URL: `postgres://app:s3cret%40pw@127.0.0.1:${port}/plants` }));
    assert.match(line, /refused the password of user "app" \(28P01\)/);
    assert.deepEqual([...new Set(passwords)], ['s3cret@pw']);
  });

  test('a server that asks for a password DATABASE_URL does not have stops the start at once with one line', { timeout: 60_000 }, async (t) => {
    const { port } = await postgresAskingPassword(t, 'scram');
    for (const command of [['migrate'], ['serve', '--port', '0']]) {
      const result = await runCli(command, { DATABASE_URL: `postgres://app@127.0.0.1:${port}/plants` });
      assert.equal(onlyLine(result), `plantstore: cannot use the database: PostgreSQL at 127.0.0.1:${port} asks for a password, and DATABASE_URL has none; add it (postgres://user:password@host/database)`);
      assert.doesNotMatch(result.stdout, /retrying the start/);
    }
  });

  test('a database that does not exist on the real server stops the start at once', { skip: postgres.reason }, async () => {
    const url = new URL(postgres.url as string);
    url.pathname = '/plantstore_no_such_database';
    const line = onlyLine(await runCli(['serve', '--port', '0'], { DATABASE_URL: url.href }));
    assert.match(line, /has no database "plantstore_no_such_database" \(3D000\)/);
  });

  test('a role that does not exist on the real server stops the start at once', { skip: postgres.reason }, async () => {
    const url = new URL(postgres.url as string);
    url.username = 'plantstore_no_such_role';
    const line = onlyLine(await runCli(['serve', '--port', '0'], { DATABASE_URL: url.href }));
    assert.match(line, /refused user "plantstore_no_such_role" \(28000: role "plantstore_no_such_role" does not exist\)/);
  });

  const tlsRefusals: [string, (t: TestContext) => Promise<number>, string][] = [
    [
      'TLS asked of a server without it',
      postgresWithoutTls,
      'does not support TLS, but DATABASE_URL asks for sslmode=verify-full; turn TLS on in the server (ssl = on) or change sslmode in DATABASE_URL',
    ],
    [
      'a server certificate that fails verification',
      postgresWithTls,
      'sent a TLS certificate that fails verification (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate); set sslrootcert=<file> in DATABASE_URL to the certificate of the CA that signed it, and use the host name the certificate names',
    ],
  ];
  for (const [name, fakeServer, reason] of tlsRefusals) {
    test(`${name} stops the start at once with one line, the password never shown`, { timeout: 60_000 }, async (t) => {
      const port = await fakeServer(t);
      const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${port}/plants?sslmode=verify-full` });
      assert.equal(onlyLine(result), `plantstore: cannot use the database: PostgreSQL at 127.0.0.1:${port} ${reason}`);
      assert.doesNotMatch(result.stderr + result.stdout, /s3cret|retrying/);
    });
  }

  test("pg's warning about sslmode=require is a JSON log line, not text among the log's lines", { timeout: 60_000 }, async (t) => {
    const port = await postgresWithoutTls(t);
    const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${port}/plants?sslmode=require` });
    assert.match(onlyLine(result), /does not support TLS, but DATABASE_URL asks for sslmode=require/);
    const warnings = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === 40);
    assert.equal(warnings.length, 1, result.stdout);
    assert.match(warnings[0]?.msg ?? '', /SSL modes 'prefer', 'require', and 'verify-ca' are treated as aliases for 'verify-full'/);
  });

  test('a database in an encoding other than UTF8 stops the start at once: it cannot hold every name', { skip: postgres.reason }, async (t) => {
    const name = `plantstore_latin1_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    t.after(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    });
    await admin.query(`CREATE DATABASE ${name} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
    const url = new URL(postgres.url as string);
    url.pathname = `/${name}`;
    for (const command of [['migrate'], ['serve', '--port', '0']]) {
      const line = onlyLine(await runCli(command, { DATABASE_URL: url.href }));
      assert.equal(line, "plantstore: the database's encoding is LATIN1, which cannot hold every name and tag: plantstore needs a UTF8 database (createdb -E UTF8 -T template0)");
    }
  });

  test('TLS asked of the real server, which has none, stops the start at once', { skip: postgres.reason, timeout: 60_000 }, async () => {
    const url = new URL(postgres.url as string);
    url.searchParams.set('sslmode', 'verify-full');
    const line = onlyLine(await runCli(['serve', '--port', '0'], { DATABASE_URL: url.href }));
    assert.match(line, /does not support TLS, but DATABASE_URL asks for sslmode=verify-full/);
  });

  test('an unreachable server: each retry is one short log line without a stack, and SIGTERM ends the wait with 0', async (t) => {
    const refusedPort = await freePort(); // connecting to it is refused

    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], {
      env: { ...process.env, DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${refusedPort}/plants` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null]>;
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = Date.now() + 10_000;
    while ((stdout.match(/retrying the start/g) ?? []).length < 2) {
      assert.ok(Date.now() < deadline, `two retry lines: ${stdout}${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
    assert.equal(stderr, '');
    for (const line of stdout.trimEnd().split('\n')) {
      assert.ok(line.length < 200, `a short line: ${line}`);
      assert.doesNotMatch(line, /stack|s3cret/);
      assert.match(line, /"reason":"ECONNREFUSED".*"msg":"the database does not answer; retrying the start"/);
    }
  });

  test('SIGTERM while the first-start token is being stored, after the port opened: a request in flight is answered, then exit 0', { skip: postgres.reason, timeout: 30_000 }, async (t) => {
    const factory = storeFactories().find((candidate) => candidate.kind === 'postgres');
    assert.ok(factory !== undefined);
    const databaseUrl = await factory.freshUrl(t);
    assert.equal((await runCli(['migrate', '--database-url', databaseUrl])).code, 0);
    // The token table locked: the first-start token's insert, and any token lookup, wait for it.
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    t.after(() => locker.end());
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE api_tokens IN ACCESS EXCLUSIVE MODE');

    const port = await freePort();
    const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port)], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null]>;
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const deadline = Date.now() + 15_000;
    while (!(await accepts(port))) {
      assert.ok(Date.now() < deadline, `the server to listen: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // In flight: its token lookup waits for the lock, as the first-start token does.
    const inFlight = fetch(`http://127.0.0.1:${port}/plants`, { headers: { authorization: `Bearer pst_${'a'.repeat(43)}` } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await locker.query('ROLLBACK');
    const response = await inFlight;
    assert.equal(response.status, 401, 'the request in flight is answered');
    const [code] = await exited;
    assert.equal(code, 0, stderr);
    assert.match(stderr, /here is an API token/, 'the first-start token was stored and shown');
  });
});
