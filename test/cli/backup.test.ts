/**
 * `plantstore backup` and `plantstore restore` on the embedded database: a backup taken while
 * a server serves writes holds every plant acknowledged before it began, and restore refuses a
 * database that a server has open.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { runCli, startServerProcess } from '../helpers/process.js';
import { authorizedFetch, tempDir } from '../helpers/server.js';

/** Posts plants named after their ids from `lanes` concurrent loops until stopped; returns the acknowledged ids. */
function writeLoad(url: string, token: string, lanes: number) {
  const acknowledged = new Set<number>();
  let stopped = false;
  let nextId = 1;
  const loops = Array.from({ length: lanes }, async () => {
    while (!stopped) {
      const id = nextId++;
      const response = await authorizedFetch(`${url}/plants`, token, { method: 'POST', json: { id, name: `p-${id}` } });
      await response.arrayBuffer();
      assert.equal(response.status, 200);
      acknowledged.add(id);
    }
  });
  return {
    acknowledged,
    attempted: () => nextId - 1,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

async function plantIds(url: string, token: string): Promise<Set<number>> {
  const plants = (await (await authorizedFetch(`${url}/plants`, token)).json()) as { name: string }[];
  return new Set(plants.map((plant) => Number(plant.name.slice(2))));
}

describe('plantstore backup and restore', () => {
  test('a backup under write load holds every plant acknowledged before it began; restore brings them back', async (t) => {
    const dir = tempDir(t);
    const databaseUrl = `sqlite:${join(dir, 'data', 'plantstore.db')}`;
    const backupFile = join(dir, 'backup.db');
    const env = { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' };
    const token = (await runCli(['token', 'create', '--user', 'keeper'], env)).stdout.trim();
    const server = await startServerProcess(t, env);

    const load = writeLoad(server.url, token, 8);
    const deadline = Date.now() + 20_000;
    while (load.acknowledged.size < 100) {
      assert.ok(Date.now() < deadline, 'a hundred writes acknowledged within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const beforeBackup = new Set(load.acknowledged);
    const backup = await runCli(['backup', backupFile], env);
    const duringBackup = load.acknowledged.size - beforeBackup.size;
    await load.stop();
    assert.equal(backup.code, 0, backup.stderr);
    assert.ok(beforeBackup.size > 50, `writes before the backup: ${beforeBackup.size}`);
    assert.ok(duringBackup > 0, 'the server acknowledged writes while the backup ran');
    const [, backedUp] = /: (\d+) plants, 1 tokens$/m.exec(backup.stdout) ?? [];
    assert.ok(Number(backedUp) >= beforeBackup.size, backup.stdout);

    const refused = await runCli(['restore', backupFile], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^plantstore: .*plantstore\.db is in use \(a plantstore server or command has it open\); stop it, then restore\n$/);
    assert.equal((await plantIds(server.url, token)).size, load.acknowledged.size, 'a refused restore changes nothing');

    server.child.kill('SIGTERM');
    assert.equal((await server.exited)[0], 0);
    const restored = await runCli(['restore', backupFile], env);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, new RegExp(`^restored .*plantstore\\.db from .*backup\\.db: ${backedUp} plants, 1 tokens\\n$`));
    assert.ok(!existsSync(join(dir, 'data', 'plantstore.db-wal')), 'no WAL of the old database is left beside the new one');

    const again = await startServerProcess(t, env);
    const ids = await plantIds(again.url, token);
    assert.equal(ids.size, Number(backedUp));
    for (const id of beforeBackup) assert.ok(ids.has(id), `plant ${id}, acknowledged before the backup, is restored`);
    for (const id of ids) assert.ok(id <= load.attempted(), `plant ${id} was written by the test`);
    assert.ok(ids.size < load.acknowledged.size, 'the plants written after the backup are gone: it is the backup that was restored');
  });

  test('a backup never replaces an existing file, and needs an existing database', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    const missing = await runCli(['backup', join(dir, 'b.db')], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^plantstore: there is no database at .*p\.db; check DATABASE_URL\n$/);

    assert.equal((await runCli(['migrate'], env)).code, 0);
    writeFileSync(join(dir, 'b.db'), 'keep me');
    const exists = await runCli(['backup', join(dir, 'b.db')], env);
    assert.equal(exists.code, 1);
    assert.match(exists.stderr, /^plantstore: .*b\.db exists already; give the backup a new file name\n$/);
  });

  test('a token given as the backup file is refused without being echoed, and no file is made', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    const token = (await runCli(['token', 'create', '--user', 'u'], env)).stdout.trim();
    const refused = await runCli(['backup', join(dir, token)], env);
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr, 'plantstore: that is a token, not a file name: backup takes the file to create\n');
    assert.equal(refused.stdout, '');
    assert.deepEqual(readdirSync(dir).filter((name) => name.startsWith('pst_')), []);
  });

  test('a file or folder that cannot be written is one line naming it, for backup and restore alike', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['migrate'], env)).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'b.db')], env)).code, 0);
    writeFileSync(join(dir, 'a-file'), ''); // in the way of a folder
    const backup = await runCli(['backup', join(dir, 'a-file', 'b.db')], env);
    assert.equal(backup.code, 1);
    assert.match(backup.stderr, /^plantstore: cannot use .*a-file\/b\.db\.partial \(ENOTDIR\); check the folder and its permissions\n$/);
    const restore = await runCli(['restore', join(dir, 'b.db')], { DATABASE_URL: `sqlite:${join(dir, 'a-file', 'sub', 'p.db')}` });
    assert.equal(restore.code, 1);
    assert.match(restore.stderr, /^plantstore: cannot use .*a-file\/sub \(ENOTDIR\); check the folder and its permissions\n$/);
  });

  test('restore refuses a file that is not a plantstore backup, and leaves the database alone', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    const token = (await runCli(['token', 'create', '--user', 'u'], env)).stdout.trim();
    writeFileSync(join(dir, 'junk.db'), 'not a database at all, just text that is long enough to have a header');
    const refused = await runCli(['restore', join(dir, 'junk.db')], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^plantstore: .*junk\.db is not a readable SQLite database \(SQLITE_NOTADB\)\n$/);
    const listed = await runCli(['token', 'list', '--json'], env);
    assert.match(listed.stdout, /"user": "u"/);
    assert.match(token, /^pst_/);
  });

  test('a damaged page, even one that counting the plants does not read, stops a restore (the database left alone) and a backup (no file left)', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'u'], env)).code, 0);
    const damaged = join(dir, 'damaged.db');
    assert.equal((await runCli(['migrate'], { DATABASE_URL: `sqlite:${damaged}` })).code, 0);
    const db = new Database(damaged);
    const insert = db.prepare("INSERT INTO plants (owner, id, name) VALUES ('u', ?, ?)");
    db.transaction(() => {
      for (let id = 0; id < 3_000; id++) insert.run(id, `a plant with a longish name, number ${id}`);
    })();
    db.pragma('journal_mode = DELETE');
    // A leaf of the plants table: count(*) reads the covering index plants_by_tag, not this page.
    const { pageno } = db.prepare("SELECT pageno FROM dbstat WHERE name = 'plants' AND pagetype = 'leaf' LIMIT 1").get() as { pageno: number };
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const bytes = readFileSync(damaged);
    bytes.fill(0xff, (pageno - 1) * pageSize, pageno * pageSize);
    writeFileSync(damaged, bytes);

    const refused = await runCli(['restore', damaged], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^plantstore: .*damaged\.db is damaged: [^\n]*page[^\n]*\n$/, 'one line, with what SQLite found');
    assert.match((await runCli(['token', 'list', '--json'], env)).stdout, /"user": "u"/, 'the database is untouched');

    // The same damage in a live database: its backup is refused, and no damaged copy is left under the backup's name.
    const backup = await runCli(['backup', join(dir, 'b.db')], { DATABASE_URL: `sqlite:${damaged}` });
    assert.equal(backup.code, 1);
    assert.match(backup.stderr, new RegExp(`^plantstore: ${damaged.replaceAll('.', '\\.')} is damaged: [^\\n]*\\n$`), 'names the live database, not its copy');
    assert.ok(!existsSync(join(dir, 'b.db')) && !existsSync(join(dir, 'b.db.partial')), 'no backup file is left');
  });

  test('a live database too damaged to be read is named in one line, and no backup file is left', async (t) => {
    const dir = tempDir(t);
    const damaged = join(dir, 'damaged.db');
    assert.equal((await runCli(['migrate'], { DATABASE_URL: `sqlite:${damaged}` })).code, 0);
    const db = new Database(damaged);
    db.pragma('journal_mode = DELETE');
    db.close();
    const bytes = readFileSync(damaged);
    bytes.fill(0xff, 100, 4096); // the schema's page, past the file header
    writeFileSync(damaged, bytes);

    const backup = await runCli(['backup', join(dir, 'b.db')], { DATABASE_URL: `sqlite:${damaged}` });
    assert.equal(backup.code, 1);
    assert.match(backup.stderr, new RegExp(`^plantstore: ${damaged.replaceAll('.', '\\.')} is damaged \\(SQLITE_(CORRUPT|NOTADB)\\): SQLite cannot read it to copy it\\n$`));
    assert.ok(!existsSync(join(dir, 'b.db')) && !existsSync(join(dir, 'b.db.partial')), 'no backup file is left');
  });

  test('restore refuses an intact SQLite file that lacks either plantstore table, saying it is not a plantstore database', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'u'], env)).code, 0);
    for (const table of ['plants', 'api_tokens']) {
      const other = join(dir, `only-${table}.db`);
      const db = new Database(other);
      db.exec(`CREATE TABLE ${table} (id INTEGER PRIMARY KEY)`);
      db.close();
      const refused = await runCli(['restore', other], env);
      assert.equal(refused.code, 1, table);
      assert.equal(refused.stderr, `plantstore: ${other} is not a plantstore database\n`);
    }
    assert.match((await runCli(['token', 'list', '--json'], env)).stdout, /"user": "u"/, 'the database is untouched');
  });

  test('a backup is left in rollback-journal mode, so that it can be read from a folder its reader cannot write', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'u'], env)).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'b.db')], env)).code, 0);
    const header = readFileSync(join(dir, 'b.db')).subarray(18, 20);
    assert.deepEqual([...header], [1, 1], 'file format bytes 18 and 19: 1 is rollback journal, 2 is WAL');
    assert.ok(!existsSync(join(dir, 'b.db-wal')) && !existsSync(join(dir, 'b.db-shm')));
  });

  test('restore over a damaged database refuses with one line, and leaves it for the operator to move', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'u'], env)).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'b.db')], env)).code, 0);
    const damaged = Buffer.alloc(8192, 7);
    writeFileSync(join(dir, 'p.db'), damaged);
    const refused = await runCli(['restore', join(dir, 'b.db')], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^plantstore: .*p\.db is damaged \(SQLITE_NOTADB\); move it aside with its -wal and -shm files, then restore\n$/);
    assert.deepEqual(readFileSync(join(dir, 'p.db')), damaged);
    renameSync(join(dir, 'p.db'), join(dir, 'p.db.damaged'));
    assert.equal((await runCli(['restore', join(dir, 'b.db')], env)).code, 0);
  });

  test('a backup or restore whose copy would land on its own source refuses, and removes nothing', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'u'], env)).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'b.db')], env)).code, 0);
    // A backup left as p.db.restoring by a restore cut short, restored from that name.
    copyFileSync(join(dir, 'b.db'), join(dir, 'p.db.restoring'));
    assert.equal((await runCli(['token', 'create', '--user', 'v'], env)).code, 0); // only in the database
    const restore = await runCli(['restore', join(dir, 'p.db.restoring')], env);
    assert.equal(restore.code, 1);
    assert.match(restore.stderr, /^plantstore: .*p\.db\.restoring is the file restore copies the backup to; rename it, then restore from the new name\n$/);
    assert.ok(existsSync(join(dir, 'p.db.restoring')), 'the backup is kept');
    assert.match((await runCli(['token', 'list', '--json'], env)).stdout, /"user": "v"/, 'the database is untouched');

    // A database named like the backup's partial copy.
    const partialEnv = { DATABASE_URL: `sqlite:${join(dir, 'q.db.partial')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'w'], partialEnv)).code, 0);
    const backup = await runCli(['backup', join(dir, 'q.db')], partialEnv);
    assert.equal(backup.code, 1);
    assert.match(backup.stderr, /^plantstore: the database .*q\.db\.partial is the file this backup would write its copy to; give the backup another name\n$/);
    assert.match((await runCli(['token', 'list', '--json'], partialEnv)).stdout, /"user": "w"/, 'the database is untouched');
  });

  test('restore where the database was moved away but its -wal was not refuses, and keeps the -wal', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'u'], env)).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'b.db')], env)).code, 0);
    // A database with changes still in its WAL, as a killed server leaves it.
    const db = new Database(join(dir, 'p.db'));
    db.pragma('wal_autocheckpoint = 0');
    db.prepare("INSERT INTO plants (owner, id, name) VALUES ('u', 1, 'only in the WAL')").run();
    const wal = readFileSync(join(dir, 'p.db-wal'));
    db.close(); // closing checkpoints; the WAL a crash leaves is put back below
    writeFileSync(join(dir, 'p.db-wal'), wal);
    renameSync(join(dir, 'p.db'), join(dir, 'p.db.aside'));
    const refused = await runCli(['restore', join(dir, 'b.db')], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^plantstore: .*p\.db-wal holds changes of a database no longer at .*p\.db; move it and .*p\.db-shm beside that database \(or delete them\), then restore\n$/);
    assert.deepEqual(readFileSync(join(dir, 'p.db-wal')), wal, 'the WAL is kept');
    assert.ok(!existsSync(join(dir, 'p.db')));
    rmSync(join(dir, 'p.db-wal'));
    assert.equal((await runCli(['restore', join(dir, 'b.db')], env)).code, 0);
  });

  test('restore where no database is but an empty -wal and a -shm are goes ahead, and removes them', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'u'], env)).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'b.db')], env)).code, 0);
    // An empty -wal holds no changes: nothing of a moved database would be lost.
    rmSync(join(dir, 'p.db'));
    writeFileSync(join(dir, 'p.db-wal'), '');
    writeFileSync(join(dir, 'p.db-shm'), Buffer.alloc(32_768, 1));
    const restored = await runCli(['restore', join(dir, 'b.db')], env);
    assert.equal(restored.code, 0, restored.stderr);
    assert.ok(!existsSync(join(dir, 'p.db-wal')) && !existsSync(join(dir, 'p.db-shm')), 'the leftovers are gone');
    assert.match((await runCli(['token', 'list', '--json'], env)).stdout, /"user": "u"/, 'the backup is restored');
  });

  test('restore refuses a database in rollback-journal mode that another connection has open', async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'u'], env)).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'b.db')], env)).code, 0);
    assert.equal((await runCli(['restore', join(dir, 'b.db')], env)).code, 0); // p.db is now in rollback-journal mode, as the backup is
    // A reader in the middle of a read: leaving WAL mode has nothing to do here, taking the lock does.
    const reader = new Database(join(dir, 'p.db'), { readonly: true });
    t.after(() => reader.close());
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM plants').get();
    const refused = await runCli(['restore', join(dir, 'b.db')], env);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /^plantstore: .*p\.db is in use \(a plantstore server or command has it open\); stop it, then restore\n$/);
  });

  test('a full disk is one line naming the file, and leaves nothing behind', async (t) => {
    const dir = tempDir(t);
    const small = mkdtempSync(join(tmpdir(), 'plantstore-full-'));
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=128k', 'tmpfs', small]);
    t.after(() => {
      if (mounted.status === 0) spawnSync('umount', [small]);
      rmSync(small, { recursive: true });
    });
    if (mounted.status !== 0) {
      t.skip(`cannot mount a small tmpfs here (${String(mounted.stderr).trim() || mounted.error?.message}); needs root`);
      return;
    }
    const databasePath = join(dir, 'p.db');
    assert.equal((await runCli(['migrate'], { DATABASE_URL: `sqlite:${databasePath}` })).code, 0);
    const db = new Database(databasePath);
    const insert = db.prepare("INSERT INTO plants (owner, id, name, tag) VALUES ('u', ?, ?, NULL)");
    db.transaction(() => {
      for (let id = 0; id < 4_000; id++) insert.run(id, `a plant with a longish name, number ${id}`);
    })();
    db.close();
    const full = await runCli(['backup', join(small, 'b.db')], { DATABASE_URL: `sqlite:${databasePath}` });
    assert.equal(full.code, 1);
    assert.match(full.stderr, /^plantstore: the disk that holds .*plantstore-full-[^/]*\/b\.db\.partial is full\n$/);
    assert.deepEqual(readdirSync(small), []);
  });

  test('restore through a database path that is a link replaces the linked file and keeps the link', async (t) => {
    const dir = tempDir(t);
    const volume = join(dir, 'volume');
    mkdirSync(volume);
    symlinkSync(join(volume, 'p.db'), join(dir, 'p.db'));
    const env = { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'before'], env)).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'b.db')], env)).code, 0);
    assert.equal((await runCli(['token', 'create', '--user', 'after'], env)).code, 0);
    const restored = await runCli(['restore', join(dir, 'b.db')], env);
    assert.equal(restored.code, 0, restored.stderr);
    assert.ok(lstatSync(join(dir, 'p.db')).isSymbolicLink(), 'the link is still a link');
    const listed = await runCli(['token', 'list', '--json'], { DATABASE_URL: `sqlite:${join(volume, 'p.db')}` });
    assert.deepEqual((JSON.parse(listed.stdout) as { user: string }[]).map((token) => token.user), ['before']);
  });

  test('restore through a database path that links to a file not made yet makes the linked file and keeps the link', async (t) => {
    const dir = tempDir(t);
    const source = { DATABASE_URL: `sqlite:${join(dir, 'source.db')}` };
    assert.equal((await runCli(['token', 'create', '--user', 'before'], source)).code, 0);
    assert.equal((await runCli(['backup', join(dir, 'b.db')], source)).code, 0);
    const volume = join(dir, 'volume');
    mkdirSync(volume);
    symlinkSync(join(volume, 'p.db'), join(dir, 'p.db')); // dangling: the volume is still empty
    const restored = await runCli(['restore', join(dir, 'b.db')], { DATABASE_URL: `sqlite:${join(dir, 'p.db')}` });
    assert.equal(restored.code, 0, restored.stderr);
    assert.ok(lstatSync(join(dir, 'p.db')).isSymbolicLink(), 'the link is still a link');
    const listed = await runCli(['token', 'list', '--json'], { DATABASE_URL: `sqlite:${join(volume, 'p.db')}` });
    assert.deepEqual((JSON.parse(listed.stdout) as { user: string }[]).map((token) => token.user), ['before']);
  });

  test('on PostgreSQL, backup and restore point to pg_dump', async () => {
    for (const verb of ['backup', 'restore']) {
      const result = await runCli([verb, '/tmp/x.db'], { DATABASE_URL: 'postgres://app@127.0.0.1:1/plants' });
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`^plantstore: ${verb} works on the embedded SQLite database; for PostgreSQL use pg_dump and pg_restore \\(docs/operations\\.md\\)\\n$`));
    }
  });
});
