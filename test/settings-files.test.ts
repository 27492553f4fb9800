/** Secrets from files: JWT_SECRET_FILE and DATABASE_URL_FILE, the container-secrets convention. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { SettingError, loadSettings } from '../src/settings.js';
import { runCli, startServerProcess } from './helpers/process.js';
import { authorizedFetch, tempDir } from './helpers/server.js';

const SECRET = 'a shared secret of thirty-two bytes or more';

describe('settings from <NAME>_FILE', () => {
  test('JWT_SECRET_FILE and DATABASE_URL_FILE are read, with the trailing line break dropped', (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'jwt'), `${SECRET}\n`);
    writeFileSync(join(dir, 'db'), 'postgres://plantstore:p%40ss@db:5432/plants\r\n');
    const settings = loadSettings({ JWT_SECRET_FILE: join(dir, 'jwt'), DATABASE_URL_FILE: join(dir, 'db') });
    assert.equal(settings.jwtSecret, SECRET);
    assert.equal(settings.databaseUrl, 'postgres://plantstore:p%40ss@db:5432/plants');
  });

  test('REDIS_URL, which may hold a password, can come from REDIS_URL_FILE too', (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'redis'), 'redis://:secret@127.0.0.1:6379\n');
    assert.equal(loadSettings({ RATE_LIMIT: '100/1s', REDIS_URL_FILE: join(dir, 'redis') }).redisUrl, 'redis://:secret@127.0.0.1:6379');
  });

  test('a secret with inner line breaks and white space at its ends keeps them; only final line breaks go', (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'jwt'), ` ${SECRET}\nsecond line \n\n`);
    assert.equal(loadSettings({ JWT_SECRET_FILE: join(dir, 'jwt') }).jwtSecret, ` ${SECRET}\nsecond line `);
  });

  test('an empty file (a secret that was not mounted) is a bad setting, not the feature turned off', (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'jwt'), '\n');
    writeFileSync(join(dir, 'redis'), '');
    for (const variable of ['JWT_SECRET_FILE', 'REDIS_URL_FILE']) {
      const path = join(dir, variable === 'JWT_SECRET_FILE' ? 'jwt' : 'redis');
      assert.throws(
        () => loadSettings({ [variable]: path }),
        (error: unknown) => error instanceof SettingError && error.message === `${variable}=${JSON.stringify(path)} is empty; put the value in the file, or unset ${variable}`,
      );
    }
  });

  test('setting both X and X_FILE is an error naming both', (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'jwt'), SECRET);
    const both = (env: NodeJS.ProcessEnv, message: string) =>
      assert.throws(() => loadSettings(env), (error: unknown) => error instanceof SettingError && error.message === message);
    both({ JWT_SECRET: SECRET, JWT_SECRET_FILE: join(dir, 'jwt') }, 'JWT_SECRET and JWT_SECRET_FILE are both set: keep one of them');
    both({ DATABASE_URL: 'sqlite:a.db', DATABASE_URL_FILE: join(dir, 'jwt') }, 'DATABASE_URL and DATABASE_URL_FILE are both set: keep one of them');
  });

  test('an empty X beside X_FILE counts as unset: how a default set by the image or the unit is cleared', (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'database_url'), 'postgres://plantstore:secret@db:5432/plants\n');
    const settings = loadSettings({ DATABASE_URL: '', DATABASE_URL_FILE: join(dir, 'database_url') });
    assert.equal(settings.databaseUrl, 'postgres://plantstore:secret@db:5432/plants');
  });

  test('a file that cannot be read is a bad setting naming the variable and the path, never the content', (t) => {
    const missing = join(tempDir(t), 'missing');
    assert.throws(() => loadSettings({ JWT_SECRET_FILE: missing }), (error: unknown) => {
      assert.ok(error instanceof SettingError);
      assert.equal(error.message, `JWT_SECRET_FILE=${JSON.stringify(missing)} cannot be read (ENOENT); point it at a readable file`);
      return true;
    });
  });

  test("a file's value is checked like the variable's; a secret stays hidden in the message", (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'jwt'), 'too short\n');
    writeFileSync(join(dir, 'db'), 'mysql://user:hunter2@db/plants\n');
    assert.throws(() => loadSettings({ JWT_SECRET_FILE: join(dir, 'jwt') }), /JWT_SECRET must be at least 32 bytes/);
    assert.throws(() => loadSettings({ DATABASE_URL_FILE: join(dir, 'db') }), (error: unknown) => {
      assert.ok(error instanceof SettingError);
      assert.equal(error.message, "DATABASE_URL_FILE's file=<hidden> must be sqlite:<path> or postgres://…");
      return true;
    });
  });

  test('a URL that may carry a password is shown with it masked, or not at all when it does not parse', () => {
    const message = (env: Record<string, string>) => {
      try {
        loadSettings(env);
      } catch (error) {
        assert.ok(error instanceof SettingError);
        assert.doesNotMatch(error.message, /hunter2/);
        return error.message;
      }
      assert.fail('the setting was accepted');
    };
    assert.equal(message({ DATABASE_URL: 'mysql://user:hunter2@db/plants' }), 'DATABASE_URL="mysql://user:***@db/plants" must be sqlite:<path> or postgres://…');
    assert.match(message({ DATABASE_URL: 'mysql://db/plants?password=hunter2' }), /^DATABASE_URL="mysql:\/\/db\/plants\?password=\*\*\*"/);
    assert.match(message({ DATABASE_URL: 'mysql://db/plants?sslmode=require&sslpassword=hunter2' }), /^DATABASE_URL="mysql:\/\/db\/plants\?sslmode=require&sslpassword=\*\*\*"/);
    assert.equal(message({ REDIS_URL: 'redis:/user:hunter2@cache' }), 'REDIS_URL=<hidden: not a URL> must be redis://host:port or rediss://…');
    assert.match(message({ DATABASE_URL: 'postgres://user:hun/ter2@db:5432/plants' }), /^DATABASE_URL=<hidden: not a URL> is not a well-formed postgres:\/\/ URL/);
  });

  test('a flag wins over a secrets file without reading it: a missing file, or the variable set twice, does not stop it', () => {
    assert.equal(loadSettings({ DATABASE_URL_FILE: '/nonexistent/secret' }, { databaseUrl: 'sqlite:from-flag.db' }).databaseUrl, 'sqlite:from-flag.db');
    assert.equal(loadSettings({ DATABASE_URL: 'sqlite:a.db', DATABASE_URL_FILE: '/nonexistent/secret' }, { databaseUrl: 'sqlite:from-flag.db' }).databaseUrl, 'sqlite:from-flag.db');
    assert.throws(() => loadSettings({ DATABASE_URL_FILE: '/nonexistent/secret' }), SettingError);
  });

  test('settings without a secret have no _FILE variant; a flag still wins over the file', (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'port'), '9000');
    assert.equal(loadSettings({ PORT_FILE: join(dir, 'port') }).port, 8080);
    writeFileSync(join(dir, 'db'), 'sqlite:from-file.db');
    assert.equal(loadSettings({ DATABASE_URL_FILE: join(dir, 'db') }, { databaseUrl: 'sqlite:from-flag.db' }).databaseUrl, 'sqlite:from-flag.db');
  });

  test('a server started with both files uses them: its database, and JWTs signed with the secret', async (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'jwt'), `${SECRET}\n`);
    writeFileSync(join(dir, 'db'), `sqlite:${join(dir, 'from-file.db')}\n`);
    const server = await startServerProcess(t, { JWT_SECRET_FILE: join(dir, 'jwt'), DATABASE_URL_FILE: join(dir, 'db'), BOOTSTRAP_TOKEN: 'false' });
    const jwt = await new SignJWT({ sub: 'filed', scope: 'plants:read plants:write' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(SECRET));
    assert.equal((await authorizedFetch(`${server.url}/plants`, jwt, { method: 'POST', json: { id: 1, name: 'Fern' } })).status, 200);
    const listed = await runCli(['token', 'list', '--json'], { DATABASE_URL_FILE: join(dir, 'db') });
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout, '[]\n');
  });

  test('the command refuses both set with one line', async (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'db'), `sqlite:${join(dir, 'a.db')}\n`);
    const result = await runCli(['token', 'list'], { DATABASE_URL: `sqlite:${join(dir, 'b.db')}`, DATABASE_URL_FILE: join(dir, 'db') });
    assert.equal(result.code, 2);
    assert.equal(result.stderr, 'plantstore: bad setting: DATABASE_URL and DATABASE_URL_FILE are both set: keep one of them\n');
  });
});
