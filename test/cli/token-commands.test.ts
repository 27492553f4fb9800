import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { authorizedFetch, tempDir } from '../helpers/server.js';
import { CLI, runCli, startServerProcess } from '../helpers/process.js';

const TOKEN = /^pst_[A-Za-z0-9_-]{43}$/;

function database(t: TestContext): string {
  return `sqlite:${join(tempDir(t), 'cli.db')}`;
}

interface ListedToken {
  id: string;
  user: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

async function listTokens(databaseUrl: string): Promise<ListedToken[]> {
  const listed = await runCli(['token', 'list', '--json', '--database-url', databaseUrl]);
  assert.equal(listed.code, 0, listed.stderr);
  return JSON.parse(listed.stdout) as ListedToken[];
}

describe('plantstore token create', () => {
  test('prints the new token, and nothing else, on stdout', async (t) => {
    const created = await runCli(['token', 'create', '--user', 'bob', '--database-url', database(t)]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^pst_[A-Za-z0-9_-]{43}\n$/);
  });

  test('a read-only token has only plants:read, an expiring one has an expiry', async (t) => {
    const databaseUrl = database(t);
    await runCli(['token', 'create', '--user', 'ro', '--read-only', '--database-url', databaseUrl]);
    await runCli(['token', 'create', '--user', 'temp', '--expires-in', '2h', '--database-url', databaseUrl]);
    const [readOnly, expiring] = await listTokens(databaseUrl);
    assert.deepEqual(readOnly?.scopes, ['plants:read']);
    assert.equal(readOnly?.expiresAt, null);
    assert.deepEqual(expiring?.scopes, ['plants:read', 'plants:write']);
    const lifetime = Date.parse(expiring?.expiresAt ?? '') - Date.parse(expiring?.createdAt ?? '');
    assert.equal(lifetime, 2 * 3600 * 1000);
  });

  for (const bad of ['2', '2w', '-5m', 'm', '1.5h']) {
    test(`--expires-in ${bad} is refused with a clear line and no token`, async (t) => {
      const created = await runCli(['token', 'create', '--user', 'bob', '--expires-in', bad, '--database-url', database(t)]);
      assert.notEqual(created.code, 0);
      assert.equal(created.stdout, '');
      assert.match(created.stderr, /--expires-in/);
    });
  }

  test('an --expires-in that ends after the year 9999 is refused as usage (exit 2), and no token is made', async (t) => {
    const databaseUrl = database(t);
    const created = await runCli(['token', 'create', '--user', 'bob', '--expires-in', '3000000d', '--database-url', databaseUrl]);
    assert.equal(created.code, 2, created.stderr);
    assert.equal(created.stdout, '');
    assert.equal(created.stderr, 'plantstore: --expires-in 3000000d ends after the year 9999; give a shorter lifetime, or none for a token that never expires\n');
  });

  for (const bad of ['', 'tab\tname', 'x'.repeat(257)]) {
    test(`--user ${JSON.stringify(bad.slice(0, 12))} is refused: 1 to 256 characters, no control characters`, async (t) => {
      const created = await runCli(['token', 'create', '--user', bad, '--database-url', database(t)]);
      assert.notEqual(created.code, 0);
      assert.equal(created.stdout, '');
      assert.match(created.stderr, /^plantstore: --user .* is refused: it (must be 1 to 256 characters long|contains U\+0009)/);
    });
  }

  test('--user is required', async (t) => {
    const created = await runCli(['token', 'create', '--database-url', database(t)]);
    assert.notEqual(created.code, 0);
    assert.match(created.stderr, /--user/);
  });
});

describe('plantstore token list', () => {
  test('shows id, user, scopes, created, expires and last used, never the token or its digest', async (t) => {
    const databaseUrl = database(t);
    const { stdout: token } = await runCli(['token', 'create', '--user', 'carol', '--database-url', databaseUrl]);
    const table = await runCli(['token', 'list', '--database-url', databaseUrl]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^ID\s+USER\s+SCOPES\s+CREATED\s+EXPIRES\s+LAST USED/);
    assert.match(table.stdout, /tok_[0-9a-f]{12}\s+carol\s+plants:read plants:write/);
    assert.ok(!table.stdout.includes(token.trim()));
    const [listed] = await listTokens(databaseUrl);
    assert.deepEqual(Object.keys(listed ?? {}).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'revokedAt', 'scopes', 'user']);
  });
});

test('token list --active leaves out revoked and expired tokens, in the table and in --json', async (t) => {
  const databaseUrl = database(t);
  const create = async (...args: string[]) => {
    assert.equal((await runCli(['token', 'create', ...args, '--database-url', databaseUrl])).code, 0);
  };
  await create('--user', 'kept');
  await create('--user', 'revoked');
  await create('--user', 'expired', '--expires-in', '1s');
  const expiresAt = Date.now() + 1000;
  await create('--user', 'later', '--expires-in', '1h');
  const revoked = (await listTokens(databaseUrl)).find((token) => token.user === 'revoked');
  assert.equal((await runCli(['token', 'revoke', revoked?.id ?? '', '--database-url', databaseUrl])).code, 0);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 100));

  assert.deepEqual((await listTokens(databaseUrl)).map((token) => token.user), ['kept', 'revoked', 'expired', 'later']);
  const active = await runCli(['token', 'list', '--active', '--json', '--database-url', databaseUrl]);
  assert.equal(active.code, 0, active.stderr);
  assert.deepEqual((JSON.parse(active.stdout) as ListedToken[]).map((token) => token.user), ['kept', 'later']);
  const table = await runCli(['token', 'list', '--active', '--database-url', databaseUrl]);
  assert.deepEqual(table.stdout.trimEnd().split('\n').slice(1).map((row) => row.split(/\s+/)[1]), ['kept', 'later']);
});

test('token list into a reader that is gone (| head) ends quietly with exit 0', async (t) => {
  const databaseUrl = database(t);
  assert.equal((await runCli(['token', 'create', '--user', 'carol', '--database-url', databaseUrl])).code, 0);
  const child = spawn(process.execPath, [CLI, 'token', 'list', '--database-url', databaseUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.destroy(); // before the command starts, so that its first write meets EPIPE
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(stderr, '');
  assert.equal(code, 0);
});

describe('plantstore token revoke', () => {
  test('a revoked token is refused by a running server on the next request, and last use was recorded', async (t) => {
    const databaseUrl = database(t);
    const { stdout } = await runCli(['token', 'create', '--user', 'dave', '--database-url', databaseUrl]);
    const token = stdout.trim();
    assert.match(token, TOKEN);
    const server = await startServerProcess(t, { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' });
    assert.equal((await authorizedFetch(`${server.url}/plants`, token)).status, 200);

    const [listed] = await listTokens(databaseUrl);
    assert.notEqual(listed?.lastUsedAt, null, 'last use is recorded');
    const revoked = await runCli(['token', 'revoke', listed?.id ?? '', '--database-url', databaseUrl]);
    assert.equal(revoked.code, 0, revoked.stderr);

    const refused = await authorizedFetch(`${server.url}/plants`, token);
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="plantstore", error="invalid_token"');
  });

  test('revoking an unknown id fails with a clear line', async (t) => {
    const databaseUrl = database(t);
    assert.equal((await runCli(['migrate', '--database-url', databaseUrl])).code, 0);
    const revoked = await runCli(['token', 'revoke', 'tok_000000000000', '--database-url', databaseUrl]);
    assert.notEqual(revoked.code, 0);
    assert.match(revoked.stderr, /no token has the id tok_000000000000, or it is revoked already/);
  });

  test('a token given instead of its id is refused without being echoed', async (t) => {
    const databaseUrl = database(t);
    const token = (await runCli(['token', 'create', '--user', 'u', '--database-url', databaseUrl])).stdout.trim();
    for (const pasted of [token, 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl']) {
      const revoked = await runCli(['token', 'revoke', pasted, '--database-url', databaseUrl]);
      assert.equal(revoked.code, 2);
      assert.equal(revoked.stderr, 'plantstore: that is a token, not its id: revoke takes the ID that token list shows\n');
      assert.ok(!revoked.stdout.includes(pasted));
    }
  });

  test('anything else that is not a token id is refused without being echoed: a pasted secret may not start with pst_', async (t) => {
    const databaseUrl = database(t);
    for (const pasted of [' pst_secret-with-a-space', 'Bearer pst_secret', 'tok_ABC']) {
      const revoked = await runCli(['token', 'revoke', pasted, '--database-url', databaseUrl]);
      assert.equal(revoked.code, 2, pasted);
      assert.equal(revoked.stderr, 'plantstore: that is not a token id (tok_ and 12 hex digits): revoke takes the ID that token list shows\n', pasted);
    }
  });
});

describe('plantstore --help', () => {
  test('the command and each subcommand say what they do', async () => {
    const top = await runCli(['--help']);
    assert.equal(top.code, 0);
    for (const command of ['serve', 'migrate', 'token']) assert.match(top.stdout, new RegExp(command));
    const create = await runCli(['token', 'create', '--help']);
    assert.match(create.stdout, /--read-only/);
    assert.match(create.stdout, /--expires-in/);
    const serve = await runCli(['serve', '--help']);
    for (const flag of ['--port', '--host', '--database-url', '--log-level', '--body-limit', '--bootstrap-token', '--jwt-secret', '--jwt-jwks-url', '--jwt-issuer', '--jwt-audience', '--jwt-owner-claim', '--cors-origins']) {
      assert.ok(serve.stdout.includes(flag), `serve --help names ${flag}`);
    }
  });
});

describe('plantstore migrate', () => {
  test('applies the schema and is idempotent, and says which it did', async (t) => {
    const databaseUrl = database(t);
    const said: string[] = [];
    for (let run = 0; run < 2; run++) {
      const migrated = await runCli(['migrate', '--database-url', databaseUrl]);
      assert.equal(migrated.code, 0, migrated.stderr);
      said.push(migrated.stdout);
    }
    assert.deepEqual(said, ['applied 2 migrations; the schema is up to date\n', 'the schema was up to date\n']);
    assert.deepEqual(await listTokens(databaseUrl), []);
  });

  test('serve logs the migrations it applied, and nothing when there were none', async (t) => {
    const databaseUrl = database(t);
    for (const expected of [true, false]) {
      const instance = await startServerProcess(t, { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' });
      instance.child.kill('SIGTERM');
      await instance.exited;
      assert.equal(instance.stdout().includes('"applied":2,"msg":"applied schema migrations"'), expected, instance.stdout());
    }
  });
});

describe('token commands and a SQLite file that is not there', () => {
  test('list and revoke refuse it (exit 2) and create nothing: a mistyped path is not a new database', async (t) => {
    const path = join(tempDir(t), 'typo.db');
    for (const args of [['list'], ['revoke', 'tok_000000000000']]) {
      const result = await runCli(['token', ...args, '--database-url', `sqlite:${path}`]);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr, `plantstore: there is no database at ${path}; check DATABASE_URL (or --database-url)\n`);
      assert.equal(existsSync(path), false);
    }
  });

  test('create makes it, as before a first start, and says so on stderr; stdout is still only the token', async (t) => {
    const path = join(tempDir(t), 'new.db');
    const created = await runCli(['token', 'create', '--user', 'first', '--database-url', `sqlite:${path}`]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^pst_[A-Za-z0-9_-]{43}\n$/);
    assert.equal(created.stderr, `plantstore: created a new database at ${path}\n`);
    const again = await runCli(['token', 'create', '--user', 'second', '--database-url', `sqlite:${path}`]);
    assert.equal(again.stderr, '', 'said only when it was created');
  });
});
