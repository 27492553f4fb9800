/**
 * Every failure of the command is one line on stderr, never a stack trace: bad settings, a
 * database it cannot use, refused user names and lifetimes, and failures nobody foresaw.
 */
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { issueToken } from '../../src/auth/api-tokens.js';
import { loadSettings } from '../../src/settings.js';
import { openStore } from '../../src/store/open-store.js';
import { runCli, type CliResult } from '../helpers/process.js';
import { tempDir, uniqueName } from '../helpers/server.js';
import { unprivileged } from '../helpers/unprivileged.js';

/** The one line a failed command printed; no token on stdout, no stack on stderr. */
function oneLine(result: CliResult): string {
  assert.notEqual(result.code, 0, 'the command fails');
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /\n\s+at |Error:|\.js:\d+/, 'no stack trace');
  assert.equal(result.stdout, '');
  return lines[0] ?? '';
}

function sqlite(t: TestContext): string {
  return `sqlite:${join(tempDir(t), 'cli.db')}`;
}

const databases: [string, (t: TestContext) => string][] = [['sqlite', sqlite]];
if (process.env.TEST_DATABASE_URL) databases.push(['postgres', () => process.env.TEST_DATABASE_URL as string]);

describe('token create refuses what would fool a person, in one line', () => {
  for (const [kind, database] of databases) {
    test(`--expires-in past the year 9999 is refused on ${kind}, and no token is made`, async (t) => {
      const databaseUrl = database(t);
      assert.equal((await runCli(['migrate', '--database-url', databaseUrl])).code, 0);
      const user = uniqueName('late');
      for (const lifetime of ['100000000d', '999999999d', '3000000d']) {
        const line = oneLine(await runCli(['token', 'create', '--user', user, '--expires-in', lifetime, '--database-url', databaseUrl]));
        assert.match(line, new RegExp(`^plantstore: --expires-in ${lifetime} ends after the year 9999`));
      }
      const listed = await runCli(['token', 'list', '--json', '--database-url', databaseUrl]);
      assert.ok(!(JSON.parse(listed.stdout) as { user: string }[]).some((token) => token.user === user));
      const longest = await runCli(['token', 'create', '--user', user, '--expires-in', '2900000d', '--database-url', databaseUrl]);
      assert.equal(longest.code, 0, longest.stderr);
    });
  }

  for (const [what, name, reason] of [
    ['a leading space', ' admin', /starts or ends with white space/],
    ['a trailing tab', 'admin\t', /starts or ends with white space/],
    ['a zero-width space', 'ad\u200bmin', /U\+200B/],
    ['a right-to-left override', 'admin\u202e', /U\+202E/],
  ] as const) {
    test(`--user with ${what} is refused, naming what is wrong`, async (t) => {
      const line = oneLine(await runCli(['token', 'create', '--user', name, '--database-url', sqlite(t)]));
      assert.match(line, /^plantstore: --user ".*" is refused: /);
      assert.match(line, reason);
    });
  }

  test('--user that is a token or a JWT is refused without being echoed, and no token is made', async (t) => {
    const databaseUrl = sqlite(t);
    const token = (await runCli(['token', 'create', '--user', 'alice', '--database-url', databaseUrl])).stdout.trim();
    const jwt = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: 'alice', pad: 'x'.repeat(300) })).toString('base64url')}.c2lnbmF0dXJl`;
    for (const pasted of [token, jwt]) {
      for (const args of [['--user', pasted], [`--user=${pasted}`]]) {
        const line = oneLine(await runCli(['token', 'create', ...args, '--database-url', databaseUrl]));
        assert.equal(line, 'plantstore: that is a token, not a user name: --user takes the name of the user the token acts for');
      }
    }
    const listed = JSON.parse((await runCli(['token', 'list', '--json', '--database-url', databaseUrl])).stdout) as { user: string }[];
    assert.deepEqual(listed.map((listedToken) => listedToken.user), ['alice']);
  });

  test('--user is stored in NFC: a decomposed é lists as the composed one', async (t) => {
    const databaseUrl = sqlite(t);
    const created = await runCli(['token', 'create', '--user', 'jose\u0301', '--database-url', databaseUrl]);
    assert.equal(created.code, 0, created.stderr);
    const listed = JSON.parse((await runCli(['token', 'list', '--json', '--database-url', databaseUrl])).stdout) as { user: string }[];
    assert.deepEqual(listed.map((token) => token.user), ['jos\u00e9']);
  });
});

test('token list quotes a user name stored before the rules, so it cannot pass for another', async (t) => {
  const databaseUrl = sqlite(t);
  const store = await openStore(loadSettings({}, { databaseUrl }));
  await issueToken(store, { user: ' admin' });
  await issueToken(store, { user: 'admin' });
  await store.close();
  const table = await runCli(['token', 'list', '--database-url', databaseUrl]);
  assert.equal(table.code, 0, table.stderr);
  const users = table.stdout.trimEnd().split('\n').slice(1).map((row) => row.split(/ {2,}/)[1]);
  assert.deepEqual(users.sort(), ['" admin"', 'admin']);
});

describe('any CLI failure is one line', () => {
  test('a DATABASE_URL of another kind names the setting', async () => {
    const line = oneLine(await runCli(['token', 'list'], { DATABASE_URL: 'mysql://localhost/plants' }));
    assert.match(line, /^plantstore: bad setting: DATABASE_URL="mysql:\/\/localhost\/plants" must be sqlite:<path> or postgres:/);
  });

  test('a PostgreSQL URL with a malformed escape names the database', async () => {
    const line = oneLine(await runCli(['token', 'list', '--database-url', 'postgres://%zz@127.0.0.1:1/x']));
    assert.match(line, /^plantstore: cannot use the database: PostgreSQL at 127\.0\.0\.1:1 is unreachable/);
  });

  test('a PostgreSQL URL that does not parse is a bad setting at once, its password not shown', async () => {
    const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: 'postgres://app:hun/ter2@127.0.0.1:1/plants' });
    assert.equal(result.code, 2);
    assert.match(oneLine(result), /^plantstore: bad setting: DATABASE_URL=<hidden: not a URL> is not a well-formed postgres:\/\/ URL/);
    assert.doesNotMatch(result.stdout + result.stderr, /ter2/);
  });

  test('every setting flag is read, --stream-deadline too (its key is streamDeadlineMs)', async () => {
    const result = await runCli(['serve', '--port', '0', '--stream-deadline', 'banana']);
    assert.equal(result.code, 2);
    assert.match(oneLine(result), /^plantstore: bad setting: --stream-deadline="banana"/);
  });

  test('a password the URL parser takes for a port and a path is not shown', async () => {
    const result = await runCli(['serve', '--port', '0'], { DATABASE_URL: 'postgres://app:2024/Zq@127.0.0.1:1/plants?sslrootcert=/nonexistent/ca.pem' });
    assert.equal(result.code, 2);
    assert.match(oneLine(result), /^plantstore: bad setting: DATABASE_URL=<hidden: not a URL> names a file that cannot be read/);
    assert.doesNotMatch(result.stdout + result.stderr, /Zq/);
  });

  test('an unknown flag and a missing argument end in a hint', async () => {
    assert.match(oneLine(await runCli(['token', 'create', '--usr', 'bob'])), /^plantstore: .*; see plantstore token create --help$/);
    assert.match(oneLine(await runCli(['token', 'revoke'])), /^plantstore: .*token-id.*; see plantstore token revoke --help$/);
    assert.match(oneLine(await runCli(['migrate', '--database-pool-size', 'many'])), /^plantstore: bad setting: --database-pool-size="many"/);
  });

  const as = unprivileged();
  test('a data folder this user may not write', { skip: as.reason }, async (t) => {
    const dir = tempDir(t);
    chmodSync(dir, 0o755);
    const wrapper = as.reason === undefined ? as.wrapper : [];
    if (wrapper.length === 0) chmodSync(dir, 0o555);
    const line = oneLine(await runCli(['token', 'create', '--user', 'bob', '--database-url', `sqlite:${join(dir, 'sub', 'p.db')}`], {}, wrapper));
    assert.match(line, /^plantstore: cannot use the database: cannot create the data folder .*DATABASE_URL/);
  });

  test('a failure nobody foresaw (a backup of a folder named as the database) is one line that says how to see more', async (t) => {
    const folder = tempDir(t);
    const line = oneLine(await runCli(['backup', join(tempDir(t), 'backup.db'), '--database-url', `sqlite:${folder}`]));
    assert.match(line, /^plantstore: failed unexpectedly \(SQLITE_CANTOPEN\); LOG_LEVEL=debug shows the details$/);
  });

  test('a data folder that can be neither made nor found (under /proc) is one line, not a hang', { timeout: 20_000 }, async () => {
    const line = oneLine(await runCli(['migrate', '--database-url', 'sqlite:/proc/plantstore-test/data/p.db']));
    assert.match(line, /^plantstore: cannot use the database: cannot create the data folder \/proc\/plantstore-test for .*ENOENT/);
  });

  test('a backup into a folder where no file can be made names the file', async (t) => {
    const databaseUrl = sqlite(t);
    assert.equal((await runCli(['migrate', '--database-url', databaseUrl])).code, 0);
    const line = oneLine(await runCli(['backup', '/proc/plantstore-backup.db', '--database-url', databaseUrl]));
    assert.equal(line, 'plantstore: cannot use /proc/plantstore-backup.db.partial (ENOENT); check the folder and its permissions');
  });
});
