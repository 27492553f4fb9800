/** The settings of fair use: stream limits, the stream deadline, and Redis for RATE_LIMIT. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SettingError, durationSetting, loadSettings } from '../src/settings.js';

test('stream limits default to 4 per owner, 32 per process and a 5-minute deadline; Redis is off', () => {
  const settings = loadSettings({});
  assert.equal(settings.streamsPerOwner, 4);
  assert.equal(settings.streamsPerProcess, 32);
  assert.equal(settings.streamDeadlineMs, 300_000);
  assert.equal(settings.redisUrl, undefined);
  assert.equal(settings.redisKeyPrefix, 'plantstore:ratelimit');
});

test('STREAM_DEADLINE takes seconds, minutes or hours', () => {
  assert.equal(durationSetting('30s'), 30_000);
  assert.equal(durationSetting('5m'), 300_000);
  assert.equal(durationSetting('2h'), 7_200_000);
  for (const bad of ['', '5', '0s', '1.5m', '-1m', '1d', '5 m']) assert.throws(() => durationSetting(bad), /must look like/);
  assert.throws(() => loadSettings({ STREAM_DEADLINE: 'forever' }), (error: unknown) => error instanceof SettingError && /^STREAM_DEADLINE="forever" must look like/.test(error.message));
});

test('STREAM_DEADLINE is at most 24h: a longer one would overflow its timer and cut every stream at once', () => {
  assert.equal(durationSetting('24h'), 86_400_000);
  assert.equal(durationSetting('1440m'), 86_400_000);
  for (const long of ['25h', '1000h', '86401s']) assert.throws(() => loadSettings({ STREAM_DEADLINE: long }), /STREAM_DEADLINE=.* must be at most 24h/);
});

test('REDIS_URL without RATE_LIMIT stops the start: Redis would go unused, and a misspelt RATE_LIMIT unnoticed', () => {
  assert.throws(() => loadSettings({ REDIS_URL: 'redis://127.0.0.1:6379' }), /REDIS_URL set, but RATE_LIMIT is off/);
  assert.throws(() => loadSettings({ REDIS_URL: 'redis://127.0.0.1:6379', RATELIMIT: '100/1s' }), /RATE_LIMIT is off/);
});

test('REDIS_KEY_PREFIX without REDIS_URL stops the start: no key would ever have the prefix', () => {
  assert.throws(() => loadSettings({ RATE_LIMIT: '100/1s', REDIS_KEY_PREFIX: 'myapp:' }), /REDIS_KEY_PREFIX set, but REDIS_URL is not/);
  assert.equal(loadSettings({ RATE_LIMIT: '100/1s', REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: 'myapp:' }).redisKeyPrefix, 'myapp:');
});

test('REDIS_URL must be a redis:// or rediss:// address; its password never shows in the error', () => {
  assert.equal(loadSettings({ RATE_LIMIT: '100/1s', REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl, 'redis://127.0.0.1:6379');
  assert.equal(loadSettings({ RATE_LIMIT: '100/1s', REDIS_URL: 'rediss://:pw@cache.internal:6380/2' }).redisUrl, 'rediss://:pw@cache.internal:6380/2');
  assert.throws(() => loadSettings({ RATE_LIMIT: '100/1s', REDIS_URL: 'http://user:secret@cache:6379' }), (error: unknown) => {
    assert.ok(error instanceof SettingError);
    assert.doesNotMatch(error.message, /secret/);
    assert.match(error.message, /REDIS_URL=.* must be redis:\/\/host:port/);
    return true;
  });
  assert.equal(loadSettings({ RATE_LIMIT: '100/1s', REDIS_URL: 'redis://cache:6379/' }).redisUrl, 'redis://cache:6379/');
  for (const database of ['abc', '1/2', '-1']) {
    assert.throws(() => loadSettings({ RATE_LIMIT: '100/1s', REDIS_URL: `redis://cache:6379/${database}` }), /REDIS_URL=.* must be redis:\/\/host:port or redis:\/\/host:port\/<database number>/);
  }
  assert.equal(loadSettings({ RATE_LIMIT: '100/1s', REDIS_URL: 'redis://cache:6379?db=3' }).redisUrl, 'redis://cache:6379?db=3');
  for (const query of ['db=abc', 'commandTimeout=60000', 'enableOfflineQueue=true', 'db=1&maxRetriesPerRequest=20']) {
    assert.throws(() => loadSettings({ RATE_LIMIT: '100/1s', REDIS_URL: `redis://cache:6379?${query}` }), /REDIS_URL=.* takes no query parameters but db=<database number>/, query);
  }
  assert.throws(() => loadSettings({ STREAMS_PER_OWNER: '0' }), /STREAMS_PER_OWNER="0" must be a whole number from 1/);
});
