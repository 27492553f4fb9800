/** The settings table of API.md ("Running it"): each default, and a flag for every setting. */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { SETTINGS, SettingError, loadSettings } from '../src/settings.js';
import { tempDir } from './helpers/server.js';

test('with nothing set, every setting has the default API.md gives it (rate limiting and JWTs off)', () => {
  const settings = loadSettings({});
  assert.equal(settings.port, 8080);
  assert.equal(settings.host, '127.0.0.1');
  assert.equal(settings.databaseUrl, 'sqlite:./data/plantstore.db');
  assert.equal(settings.logLevel, 'info');
  assert.equal(settings.bodyLimit, 16384);
  assert.equal(settings.bootstrapToken, true);
  assert.equal(settings.jwtSecret, undefined);
  assert.equal(settings.jwtJwksUrl, undefined);
  assert.equal(settings.jwtIssuer, undefined);
  assert.equal(settings.jwtAudience, undefined);
  assert.equal(settings.jwtOwnerClaim, 'sub');
  assert.deepEqual(settings.corsOrigins, []);
  assert.equal(settings.rateLimit, undefined);
});

test('a PostgreSQL pool has at least two connections: one is always kept from streamed lists', () => {
  assert.equal(loadSettings({ DATABASE_POOL_SIZE: '2' }).databasePoolSize, 2);
  assert.throws(() => loadSettings({ DATABASE_POOL_SIZE: '1' }), /DATABASE_POOL_SIZE.*must be a whole number from 2 to 1000/);
});

test('every setting has its own command-line flag, and a flag wins over the environment', () => {
  const flags = SETTINGS.map((spec) => spec.flag);
  assert.equal(new Set(flags).size, SETTINGS.length);
  for (const flag of flags) assert.match(flag, /^[a-z]+(-[a-z]+)*$/);
  const settings = loadSettings(
    { PORT: '9000', LOG_LEVEL: 'warn', CORS_ORIGINS: 'https://env.example' },
    { port: '9001', logLevel: 'debug', corsOrigins: 'https://a.example,https://b.example' },
  );
  assert.equal(settings.port, 9001);
  assert.equal(settings.logLevel, 'debug');
  assert.deepEqual(settings.corsOrigins, ['https://a.example', 'https://b.example']);
});

test('an sslmode pg does not know stops the start as a bad setting, the password never shown', () => {
  assert.throws(
    () => loadSettings({ DATABASE_URL: 'postgres://app:hunter2@db:5432/plants?sslmode=bogus' }),
    (error: Error) => error instanceof SettingError && /has sslmode=bogus, which is none of disable, prefer, require, verify-ca, verify-full, no-verify/.test(error.message) && !error.message.includes('hunter2'),
  );
  // pg takes the last of two; a URL the WHATWG parser refuses (a user but no host) is read by pg too.
  for (const url of ['postgres://db/plants?sslmode=require&sslmode=bogus', 'postgres://u@/plants?sslmode=bogus']) {
    assert.throws(() => loadSettings({ DATABASE_URL: url }), /has sslmode=bogus/, url);
  }
  for (const mode of ['disable', 'require', 'verify-full', 'no-verify']) {
    assert.equal(loadSettings({ DATABASE_URL: `postgres://db/plants?sslmode=${mode}` }).databaseUrl, `postgres://db/plants?sslmode=${mode}`);
  }
});

test('a TLS file DATABASE_URL names that cannot be read is named with the OS error, the password never shown', (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'certs'));
  const message = (file: string) => {
    try {
      loadSettings({ DATABASE_URL: `postgres://app:hunter2@db:5432/plants?sslmode=verify-full&${file}` });
    } catch (error) {
      assert.ok(error instanceof SettingError);
      assert.doesNotMatch(error.message, /hunter2|well-formed/);
      return error.message;
    }
    assert.fail('the setting was accepted');
  };
  const missing = join(dir, 'ca.pem');
  assert.match(message(`sslrootcert=${missing}`), new RegExp(`names a file that cannot be read: sslrootcert=${missing} \\(ENOENT\\)`));
  assert.match(message(`sslcert=${join(dir, 'certs')}`), /names a file that cannot be read: sslcert=.*certs \(EISDIR\)/);
});

test('a TLS file DATABASE_URL names that pg could not use is refused, naming the parameter', (t) => {
  const dir = tempDir(t);
  const fixture = (name: string) => fileURLToPath(new URL(`../../test/fixtures/${name}`, import.meta.url));
  const write = (name: string, content: string) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };
  const notPem = write('not.pem', 'hello\n');
  const otherKey = write('other-key.pem', generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  const load = (files: string) => loadSettings({ DATABASE_URL: `postgres://app:hunter2@db:5432/plants?sslmode=verify-full&${files}` });
  const refusal = (files: string) => {
    try {
      load(files);
    } catch (error) {
      assert.ok(error instanceof SettingError);
      assert.doesNotMatch(error.message, /hunter2/);
      return error.message;
    }
    assert.fail('the setting was accepted');
  };
  const [cert, key] = [fixture('tls-test-cert.pem'), fixture('tls-test-key.pem')];
  assert.equal(load(`sslrootcert=${cert}&sslcert=${cert}&sslkey=${key}`).databaseUrl.includes('sslkey='), true);
  assert.match(refusal(`sslrootcert=${notPem}`), /names as sslrootcert a file that holds no PEM certificate \(ERR_/);
  assert.match(refusal(`sslcert=${notPem}&sslkey=${key}`), /names as sslcert a file that holds no PEM certificate \(ERR_/);
  assert.match(refusal(`sslcert=${cert}&sslkey=${notPem}`), /names as sslkey a file that holds no unencrypted PEM private key \(ERR_/);
  assert.match(refusal(`sslkey=${notPem}`), /names as sslkey a file that holds no unencrypted PEM private key \(ERR_/, 'an sslkey without an sslcert is checked too');
  assert.match(refusal(`sslcert=${cert}&sslkey=${otherKey}`), /names an sslkey that is not the key of its sslcert$/);
});

test('CORS_ORIGINS of only commas and spaces stops the start rather than allowing no origin', () => {
  for (const empty of [' , ', ',']) assert.throws(() => loadSettings({ CORS_ORIGINS: empty }), /CORS_ORIGINS=".*" names no origin: give one, or several separated by commas/);
  assert.deepEqual(loadSettings({ CORS_ORIGINS: '' }).corsOrigins, []);
});

test('a CORS origin with a path or a trailing slash is refused, saying how to write it; a wildcard is refused as such', () => {
  // The browser sends an Origin without path or slash: such an entry would match no request.
  assert.throws(() => loadSettings({ CORS_ORIGINS: 'https://app.example/' }), /CORS_ORIGINS="https:\/\/app\.example\/" is not an origin: write it as https:\/\/app\.example, without path/);
  assert.throws(() => loadSettings({ CORS_ORIGINS: 'https://a.example,https://app.example/ui' }), /lists "https:\/\/app\.example\/ui", which is not an origin: write it as https:\/\/app\.example,/);
  assert.throws(() => loadSettings({ CORS_ORIGINS: '*' }), /CORS_ORIGINS="\*" a wildcard is not accepted: list each allowed origin/);
  assert.deepEqual(loadSettings({ CORS_ORIGINS: 'http://localhost:3000' }).corsOrigins, ['http://localhost:3000']);
});

test('an in-memory SQLite database is refused: each connection plantstore opens would have its own', () => {
  assert.throws(() => loadSettings({ DATABASE_URL: 'sqlite::memory:' }), (error: unknown) => error instanceof SettingError && /must name a file/.test(error.message));
  assert.throws(() => loadSettings({}, { databaseUrl: 'sqlite::memory:' }), SettingError);
});

test('sqlite: without a path is refused: there is no file to keep the plants in', () => {
  assert.throws(() => loadSettings({ DATABASE_URL: 'sqlite:' }), (error: unknown) => error instanceof SettingError && error.message === 'DATABASE_URL="sqlite:" must be sqlite:<path> or postgres://…');
  assert.equal(loadSettings({ DATABASE_URL: 'sqlite:p.db' }).databaseUrl, 'sqlite:p.db');
});

test('each whole-number setting takes its bounds and refuses one past them, saying the range', () => {
  const bounds: [string, number, number][] = [
    ['PORT', 0, 65535],
    ['DATABASE_POOL_SIZE', 2, 1000],
    ['BODY_LIMIT', 64, 16 * 1024 * 1024],
    ['STREAMS_PER_OWNER', 1, 1000],
    ['STREAMS_PER_PROCESS', 1, 10000],
    ['WORKERS', 1, 256],
  ];
  for (const [env, min, max] of bounds) {
    const spec = SETTINGS.find((setting) => setting.env === env);
    assert.ok(spec !== undefined, env);
    for (const value of [min, max]) assert.equal(loadSettings({ [env]: String(value) })[spec.key], value, `${env}=${value}`);
    const range = `must be a whole number from ${min} to ${max}`;
    for (const value of [String(max + 1), ...(min > 0 ? [String(min - 1)] : []), 'abc', '']) {
      if (value === '') continue; // unset: the default
      assert.throws(() => loadSettings({ [env]: value }), (error: unknown) => error instanceof SettingError && error.message.endsWith(range), `${env}=${value}`);
    }
  }
});

test('an empty whole-number setting is refused, not read as 0: PORT= would listen on a random port', () => {
  for (const env of ['PORT', 'BODY_LIMIT', 'WORKERS']) {
    assert.throws(() => loadSettings({ [env]: '' }), (error: unknown) => error instanceof SettingError && error.message.startsWith(`${env}="" must be a whole number`), env);
  }
  assert.throws(() => loadSettings({}, { port: '' }), /--port="" must be a whole number from 0 to 65535$/);
});

test('a setting that must not be empty refuses white space only too', () => {
  for (const [env, value] of [['HOST', ' '], ['REDIS_KEY_PREFIX', '\t'], ['JWT_SECRET', ' '.repeat(40)]] as const) {
    assert.throws(() => loadSettings({ [env]: value }), (error: unknown) => error instanceof SettingError && error.message.endsWith('must not be empty'), env);
  }
  // The one JWT_SECRET its parse refuses is still not quoted: its length is a hint too.
  assert.throws(() => loadSettings({ JWT_SECRET: ' '.repeat(40) }), (error: unknown) => error instanceof SettingError && error.message === 'JWT_SECRET=<hidden> must not be empty');
});

test('a yes-or-no setting takes true/false, 1/0, yes/no and on/off, in any case', () => {
  for (const [raw, value] of [['true', true], ['1', true], ['YES', true], ['on', true], ['false', false], ['0', false], ['No', false], ['off', false]] as const) {
    assert.equal(loadSettings({ BOOTSTRAP_TOKEN: raw }).bootstrapToken, value, raw);
  }
  assert.throws(() => loadSettings({ BOOTSTRAP_TOKEN: 'maybe' }), /must be true or false/);
});
