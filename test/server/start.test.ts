import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { authorizedFetch, tempDir } from '../helpers/server.js';
import { runCli, startServerProcess } from '../helpers/process.js';

describe('first start', () => {
  test('prints one admin token as plain lines on stderr, with how to make more, and only once', async (t) => {
    const databaseUrl = `sqlite:${join(tempDir(t), 'first.db')}`;
    const first = await startServerProcess(t, { DATABASE_URL: databaseUrl });
    const token = /^ {4}(pst_[A-Za-z0-9_-]{43})$/m.exec(first.stderr())?.[1];
    assert.ok(token !== undefined, `a token line on stderr: ${first.stderr()}`);
    assert.match(first.stderr(), /plantstore token create --user/);
    // Without it the command would make its token in a new ./data/plantstore.db.
    assert.match(first.stderr(), /with this server's DATABASE_URL set/, 'a database other than the default is named in the hint');
    assert.ok(!first.stdout().includes(token), 'the token is not in the JSON log on stdout');
    assert.doesNotThrow(() => first.stderr().split('\n').forEach((line) => assert.ok(!line.startsWith('{'))));

    const created = await authorizedFetch(`${first.url}/plants`, token, { method: 'POST', json: { id: 1, name: 'Fern' } });
    assert.equal(created.status, 200);
    const listed = await runCli(['token', 'list', '--json', '--database-url', databaseUrl]);
    const [admin] = JSON.parse(listed.stdout) as { user: string; scopes: string[] }[];
    assert.equal(admin?.user, 'admin');
    assert.deepEqual(admin?.scopes, ['plants:read', 'plants:write']);

    first.child.kill('SIGTERM');
    await first.exited;
    // Log lines are buffered; the ones still held are written on exit.
    assert.match(first.stdout(), /"method":"POST","route":"\/plants","status":200/);
    assert.ok(!first.stdout().includes(token), 'the token is not in any log line, access lines included');
    const second = await startServerProcess(t, { DATABASE_URL: databaseUrl });
    assert.doesNotMatch(second.stderr(), /pst_/);
    assert.ok(!second.stdout().includes(token));
  });

  test('BOOTSTRAP_TOKEN=false creates no token', async (t) => {
    const databaseUrl = `sqlite:${join(tempDir(t), 'quiet.db')}`;
    const server = await startServerProcess(t, { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false' });
    assert.doesNotMatch(server.stderr(), /pst_/);
    const listed = await runCli(['token', 'list', '--json', '--database-url', databaseUrl]);
    assert.deepEqual(JSON.parse(listed.stdout), []);
  });
});

describe('settings', () => {
  const cases: [string, Record<string, string>, string[], RegExp][] = [
    ['PORT=abc', { PORT: 'abc' }, [], /PORT="abc"/],
    ['--port 70000', {}, ['--port', '70000'], /--port="70000"/],
    ['LOG_LEVEL=loud', { LOG_LEVEL: 'loud' }, [], /LOG_LEVEL="loud"/],
    ['BODY_LIMIT=-1', { BODY_LIMIT: '-1' }, [], /BODY_LIMIT="-1"/],
    ['BOOTSTRAP_TOKEN=maybe', { BOOTSTRAP_TOKEN: 'maybe' }, [], /BOOTSTRAP_TOKEN="maybe"/],
    ['DATABASE_URL=mysql://x', { DATABASE_URL: 'mysql://x' }, [], /DATABASE_URL="mysql:\/\/x"/],
    ['CORS_ORIGINS=not a url', { CORS_ORIGINS: 'https://ok.example,nope' }, [], /CORS_ORIGINS/],
    ['JWT_JWKS_URL=ftp://x', { JWT_JWKS_URL: 'ftp://x' }, [], /JWT_JWKS_URL/],
  ];
  for (const [name, env, args, names] of cases) {
    test(`a bad setting (${name}) stops the start with one line naming it`, async (t) => {
      const result = await runCli(['serve', ...args], { DATABASE_URL: `sqlite:${join(tempDir(t), 'bad.db')}`, ...env });
      assert.equal(result.code, 2);
      assert.equal(result.stdout, '');
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0] ?? '', names);
    });
  }

  test('a bad setting never echoes a secret: JWT_SECRET is hidden, a password in DATABASE_URL masked', async (t) => {
    const secret = await runCli(['serve'], { DATABASE_URL: `sqlite:${join(tempDir(t), 's.db')}`, JWT_SECRET: '   s3cret-but-blank?   ' });
    const url = await runCli(['serve'], { DATABASE_URL: 'postgresql+x://app:s3cret@db.internal/plants' });
    for (const result of [secret, url]) {
      assert.equal(result.code, 2);
      assert.doesNotMatch(result.stderr, /s3cret/);
    }
    assert.match(url.stderr, /DATABASE_URL="postgresql\+x:\/\/app:\*\*\*@db.internal\/plants"/);
  });

  test('token commands are not stopped by settings they do not use', async (t) => {
    const databaseUrl = `sqlite:${join(tempDir(t), 'u.db')}`;
    assert.equal((await runCli(['migrate', '--database-url', databaseUrl])).code, 0);
    const listed = await runCli(['token', 'list', '--database-url', databaseUrl], { PORT: 'abc', LOG_LEVEL: 'loud' });
    assert.equal(listed.code, 0, listed.stderr);
  });

  test('an embedded database that cannot be opened stops the start with one line', async (t) => {
    const result = await runCli(['serve'], { DATABASE_URL: `sqlite:${tempDir(t)}` }); // a directory
    assert.equal(result.code, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /^plantstore: cannot use the database: .*SQLITE_CANTOPEN/);
  });

  test('a flag wins over the environment', async (t) => {
    const databaseUrl = `sqlite:${join(tempDir(t), 'flag.db')}`;
    const server = await startServerProcess(t, { DATABASE_URL: databaseUrl, BOOTSTRAP_TOKEN: 'false', PORT: '1' }, ['--port', '0']);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });
});
