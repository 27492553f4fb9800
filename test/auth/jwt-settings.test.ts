import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadSettings, SettingError } from '../../src/settings.js';

const SECRET = 'development secret, thirty-two bytes or more';
const JWKS = 'https://idp.example/.well-known/jwks.json';

function settingError(env: NodeJS.ProcessEnv): SettingError {
  try {
    loadSettings(env);
  } catch (error) {
    assert.ok(error instanceof SettingError, String(error));
    return error;
  }
  assert.fail(`loadSettings accepted ${JSON.stringify(env)}`);
}

describe('JWT settings', () => {
  test('JWT_SECRET and JWT_JWKS_URL both set stops the start', () => {
    assert.match(settingError({ JWT_SECRET: SECRET, JWT_JWKS_URL: JWKS }).message, /JWT_SECRET and JWT_JWKS_URL/);
  });

  test('a JWT_SECRET shorter than 32 bytes stops the start', () => {
    assert.match(settingError({ JWT_SECRET: 'x'.repeat(31) }).message, /JWT_SECRET .*32 bytes/);
    assert.equal(loadSettings({ JWT_SECRET: 'x'.repeat(32) }).jwtSecret, 'x'.repeat(32));
  });

  test("JWT_SECRET's length is counted in bytes, as HS256 uses it, not in characters", () => {
    assert.equal(loadSettings({ JWT_SECRET: 'é'.repeat(16) }).jwtSecret, 'é'.repeat(16), '16 characters of two bytes each');
    assert.match(settingError({ JWT_SECRET: `${'é'.repeat(15)}x` }).message, /JWT_SECRET .*32 bytes/, '16 characters, 31 bytes');
  });

  test('a JWT_JWKS_URL that is not an http(s) URL stops the start', () => {
    for (const url of ['idp.example/jwks.json', 'file:///etc/jwks.json']) {
      assert.match(settingError({ JWT_JWKS_URL: url }).message, /JWT_JWKS_URL/);
    }
  });

  test('a JWT_JWKS_URL with a user name or password stops the start, the password not shown', () => {
    const message = settingError({ JWT_JWKS_URL: 'https://user:hunter2@idp.example/jwks.json' }).message;
    assert.match(message, /JWT_JWKS_URL=.* must not carry a user name or password/);
    assert.doesNotMatch(message, /hunter2/);
  });

  test('a JWT_JWKS_URL of another scheme is refused even with JWT_ISSUER and JWT_AUDIENCE set', () => {
    for (const url of ['ftp://idp.example/jwks.json', 'ws://idp.example/jwks.json']) {
      assert.match(settingError({ JWT_JWKS_URL: url, JWT_ISSUER: 'https://idp.example/', JWT_AUDIENCE: 'plants' }).message, /JWT_JWKS_URL=.* must be an absolute http\(s\) URL$/, url);
    }
  });

  test('a JWT_JWKS_URL with only a user name, or only a password, stops the start too', () => {
    for (const url of ['https://user@idp.example/jwks.json', 'https://:hunter2@idp.example/jwks.json']) {
      const message = settingError({ JWT_JWKS_URL: url, JWT_ISSUER: 'https://idp.example/', JWT_AUDIENCE: 'plants' }).message;
      assert.match(message, /JWT_JWKS_URL=.* must not carry a user name or password$/, url);
      assert.doesNotMatch(message, /hunter2/);
    }
  });

  test('JWT_ISSUER or JWT_OWNER_CLAIM with white space at an end stops the start: it would match no token', () => {
    assert.match(settingError({ JWT_JWKS_URL: JWKS, JWT_ISSUER: 'https://idp.example ' }).message, /JWT_ISSUER="https:\/\/idp\.example " must not start or end with white space/);
    assert.match(settingError({ JWT_JWKS_URL: JWKS, JWT_OWNER_CLAIM: ' org_id' }).message, /JWT_OWNER_CLAIM=" org_id" must not start or end with white space/);
  });

  test('JWT_ISSUER, JWT_AUDIENCE or JWT_OWNER_CLAIM without a key source stops the start', () => {
    assert.match(settingError({ JWT_ISSUER: 'https://idp.example' }).message, /JWT_ISSUER set, but JWTs are off/);
    assert.match(settingError({ JWT_AUDIENCE: 'plantstore' }).message, /JWT_AUDIENCE/);
    assert.match(settingError({ JWT_OWNER_CLAIM: 'org_id' }).message, /JWT_OWNER_CLAIM/);
  });

  test('a JWT_AUDIENCE that names no audience stops the start', () => {
    assert.match(settingError({ JWT_JWKS_URL: JWKS, JWT_AUDIENCE: ' , ' }).message, /JWT_AUDIENCE names no audience/);
  });

  test('JWT_JWKS_URL without JWT_ISSUER or JWT_AUDIENCE stops the start: any token of the provider would pass', () => {
    assert.match(settingError({ JWT_JWKS_URL: JWKS }).message, /^JWT_JWKS_URL needs JWT_ISSUER and JWT_AUDIENCE too/);
    assert.match(settingError({ JWT_JWKS_URL: JWKS, JWT_ISSUER: 'https://idp.example' }).message, /^JWT_JWKS_URL needs JWT_AUDIENCE too/);
    assert.match(settingError({ JWT_JWKS_URL: JWKS, JWT_AUDIENCE: 'plantstore' }).message, /^JWT_JWKS_URL needs JWT_ISSUER too/);
  });

  test('a JWT_JWKS_URL over plain http stops the start, unless it is on this machine', () => {
    const claims = { JWT_ISSUER: 'https://idp.example', JWT_AUDIENCE: 'plantstore' };
    assert.match(settingError({ JWT_JWKS_URL: 'http://idp.example/jwks.json', ...claims }).message, /must be https unless it is on this machine/);
    assert.match(settingError({ JWT_JWKS_URL: 'http://10.0.0.7:8080/jwks.json', ...claims }).message, /must be https/);
    for (const url of ['http://127.0.0.1:9001/jwks.json', 'http://localhost/jwks.json', 'http://[::1]:9001/jwks.json']) {
      assert.equal(loadSettings({ JWT_JWKS_URL: url, ...claims }).jwtJwksUrl, url);
    }
  });

  test('JWT_AUDIENCE accepts several audiences; JWT_OWNER_CLAIM defaults to sub; JWTs are off by default', () => {
    const settings = loadSettings({ JWT_JWKS_URL: JWKS, JWT_ISSUER: 'https://idp.example', JWT_AUDIENCE: 'plantstore, api://plantstore' });
    assert.deepEqual(settings.jwtAudience, ['plantstore', 'api://plantstore']);
    assert.equal(settings.jwtOwnerClaim, 'sub');
    const off = loadSettings({});
    assert.equal(off.jwtSecret, undefined);
    assert.equal(off.jwtJwksUrl, undefined);
  });
});
