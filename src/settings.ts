/**
 * Every setting plantstore reads, with its default, parsed and checked once at start.
 * Each has an environment variable and a command-line flag; the flag wins.
 * No framework imports here: the CLI, the server and the tests all load settings the same way.
 */

import { readFileSync } from 'node:fs';
import { parse as parsePostgresUrl } from 'pg-connection-string';
import { tlsFilesProblem } from './store/postgres/tls-files.js';
import { parseDuration } from './util/duration.js';
import { maskedUrl } from './util/masked-url.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Settings {
  port: number;
  host: string;
  databaseUrl: string;
  databasePoolSize: number;
  logLevel: LogLevel;
  bodyLimit: number;
  bootstrapToken: boolean;
  jwtSecret: string | undefined;
  jwtJwksUrl: string | undefined;
  jwtIssuer: string | undefined;
  jwtAudience: string[] | undefined;
  jwtOwnerClaim: string;
  corsOrigins: string[];
  rateLimit: RateLimit | undefined;
  workers: number;
  responseBatching: boolean;
  streamsPerOwner: number;
  streamsPerProcess: number;
  streamDeadlineMs: number;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
}

/** Requests allowed per owner per window (also the burst size). */
export interface RateLimit {
  requests: number;
  windowMs: number;
}

/** A bad setting: the start stops with one line naming it. */
export class SettingError extends Error {}

interface SettingSpec<K extends keyof Settings> {
  key: K;
  env: string;
  flag: string;
  default: string | undefined;
  doc: string;
  parse: (raw: string) => Settings[K];
  /** Also read from the file that `<env>_FILE` names (container secrets), for values that hold secrets. */
  file?: true;
}

function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^[0-9]+$/.test(raw)) throw new Error(`must be a whole number from ${min} to ${max}`);
    const value = Number(raw);
    if (value < min || value > max) throw new Error(`must be a whole number from ${min} to ${max}`);
    return value;
  };
}

function boolean(raw: string): boolean {
  const lowered = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lowered)) return true;
  if (['false', '0', 'no', 'off'].includes(lowered)) return false;
  throw new Error('must be true or false (or 1 or 0, yes or no, on or off)');
}

function nonEmpty(raw: string): string {
  if (raw.trim() === '') throw new Error('must not be empty');
  return raw;
}

/** A name compared exactly (an issuer, a claim): white space at its ends is a copying mistake that would match nothing. */
function exactName(raw: string): string {
  if (nonEmpty(raw) !== raw.trim()) throw new Error('must not start or end with white space');
  return raw;
}

function optional<T>(parse: (raw: string) => T) {
  return (raw: string): T | undefined => (raw === '' ? undefined : parse(raw));
}

function list(raw: string): string[] {
  return raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

function httpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('must be an absolute http(s) URL');
  // fetch refuses such a URL, with an error that quotes it, password and all.
  if (url.username !== '' || url.password !== '') throw new Error('must not carry a user name or password');
  return raw;
}

/**
 * A provider's key set signs tokens for every application it serves, and whoever can change
 * the key set can mint tokens: so a token must name this API's issuer and audience, and the
 * key set must come over https unless it is on this machine.
 */
function checkKeySetSettings(jwksUrl: string, settings: Settings): void {
  const missing = [settings.jwtIssuer === undefined && 'JWT_ISSUER', settings.jwtAudience === undefined && 'JWT_AUDIENCE'].filter((name) => name !== false);
  if (missing.length > 0) {
    throw new SettingError(`JWT_JWKS_URL needs ${missing.join(' and ')} too: the provider's keys also sign tokens meant for other applications`);
  }
  const { protocol, hostname } = new URL(jwksUrl);
  if (protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(hostname)) {
    throw new SettingError('JWT_JWKS_URL must be https unless it is on this machine: whoever can change the key set in transit can mint tokens');
  }
}

/** The longest window or deadline a setting may name: each becomes a timer, and node's wait at most about 24 days. */
const LONGEST_MS = 24 * 3_600_000;

/** Parses `<n>/<window>` such as `100/1s`, `6000/1m`, `100000/1h`. */
export function parseRateLimit(text: string): RateLimit {
  const match = /^([1-9][0-9]{0,8})\/([1-9][0-9]{0,5})?([smh])$/.exec(text);
  if (match === null) throw new Error('must look like 100/1s, 6000/1m or 100000/1h');
  // The pattern above admits only what parseDuration reads.
  const windowMs = parseDuration(`${match[2] ?? '1'}${match[3]}`) as number;
  if (windowMs > LONGEST_MS) throw new Error('must have a window of at most 24h');
  return { requests: Number(match[1]), windowMs };
}

/** Parses a duration such as `30s`, `5m` or `1h` into milliseconds. */
export function durationSetting(text: string): number {
  const ms = parseDuration(text, ['s', 'm', 'h']);
  if (ms === undefined) throw new Error('must look like 30s, 5m or 1h');
  if (ms > LONGEST_MS) throw new Error('must be at most 24h');
  return ms;
}

function redisUrl(raw: string): string {
  if (!/^rediss?:\/\/[^/]/.test(raw) || !URL.canParse(raw)) throw new Error('must be redis://host:port or rediss://…');
  const { pathname, searchParams } = new URL(raw);
  // The path is the database number; the client would send anything else to Redis as SELECT NaN.
  if (!/^(\/[0-9]{0,5})?$/.test(pathname)) throw new Error('must be redis://host:port or redis://host:port/<database number>');
  // The client takes every query parameter as an option over its own: `commandTimeout` or
  // `enableOfflineQueue` there would undo what keeps requests from waiting on a lost Redis.
  for (const [name, value] of searchParams) {
    if (name !== 'db' || !/^[0-9]{1,5}$/.test(value)) throw new Error('takes no query parameters but db=<database number>');
  }
  return raw;
}

const TLS_FILE_PARAMETERS = ['sslcert', 'sslkey', 'sslrootcert'];

/**
 * The parameter of `raw` that names `path`, such as `sslrootcert=/etc/ca.pem`; without a path
 * (a read of a folder fails with none) every TLS file parameter, one of which it is.
 */
function tlsFileNamed(raw: string, path: string | undefined): string {
  const parameters = URL.canParse(raw) ? new URL(raw).searchParams : new URLSearchParams();
  const named = TLS_FILE_PARAMETERS.filter((name) => parameters.has(name) && (path === undefined || parameters.get(name) === path));
  if (named.length === 0) return path ?? 'a TLS file';
  return named.map((name) => `${name}=${parameters.get(name) ?? ''}`).join(' or ');
}

/** The sslmode values pg knows. */
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

function databaseUrl(raw: string): string {
  // Each connection to :memory: (the writer thread's, the streams') would be a database of its own.
  if (raw === 'sqlite::memory:') throw new Error('must name a file: an in-memory SQLite database is not shared by the connections plantstore opens, and loses every plant at exit');
  if (raw.startsWith('sqlite:') && raw.length > 'sqlite:'.length) return raw;
  if (!/^postgres(ql)?:\/\//.test(raw)) throw new Error('must be sqlite:<path> or postgres://…');
  let parsed: ReturnType<typeof parsePostgresUrl>;
  try {
    parsed = parsePostgresUrl(raw); // as the pool will, so that a malformed URL stops the start here
  } catch (error) {
    // Parsing also reads the TLS files the URL names.
    const { code, path, syscall } = error as NodeJS.ErrnoException;
    if (typeof code === 'string' && typeof syscall === 'string') {
      throw new Error(`names a file that cannot be read: ${tlsFileNamed(raw, path)} (${code}); fix the path or let this user read the file`);
    }
    throw new Error('is not a well-formed postgres:// URL (a user name or password with / @ : or % must be percent-encoded)');
  }
  const { sslmode } = parsed as { sslmode?: unknown };
  // pg takes any other value for "TLS on", and then fails to connect with a misleading reason.
  if (typeof sslmode === 'string' && !SSL_MODES.includes(sslmode)) throw new Error(`has sslmode=${sslmode}, which is none of ${SSL_MODES.join(', ')}`);
  const tlsProblem = typeof parsed.ssl === 'object' ? tlsFilesProblem(parsed.ssl) : undefined;
  if (tlsProblem !== undefined) throw new Error(tlsProblem);
  return raw;
}

/**
 * Why `text` is not an origin (scheme, host and optional port, nothing more), or undefined if it
 * is one; `named` quotes `text`, for an item of a longer list.
 */
function originProblem(text: string, named: boolean): string | undefined {
  if (text === '*') return 'a wildcard is not accepted: list each allowed origin, like https://app.example.com';
  const notAnOrigin = named ? `lists "${text}", which is not an origin` : 'is not an origin';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${notAnOrigin}: write scheme and host, like https://app.example.com`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${notAnOrigin}: it must start with https:// or http://`;
  if (text !== url.origin) return `${notAnOrigin}: write it as ${url.origin}, without path, query or trailing slash`;
  return undefined;
}

function origins(raw: string): string[] {
  const values = list(raw);
  if (values.length === 0 && raw.trim() !== '') throw new Error('names no origin: give one, or several separated by commas');
  for (const origin of values) {
    const problem = originProblem(origin, values.length > 1);
    if (problem !== undefined) throw new Error(problem);
  }
  return values;
}

const DEFAULT_REDIS_KEY_PREFIX = 'plantstore:ratelimit';

/** The embedded database in the folder the service runs from. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/plantstore.db';

export const SETTINGS: readonly SettingSpec<keyof Settings>[] = [
  { key: 'port', env: 'PORT', flag: 'port', default: '8080', doc: 'listen port (0 picks a free one)', parse: integer(0, 65535) },
  { key: 'host', env: 'HOST', flag: 'host', default: '127.0.0.1', doc: 'listen address (0.0.0.0 in containers)', parse: nonEmpty },
  {
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    flag: 'database-url',
    default: DEFAULT_DATABASE_URL,
    doc: 'sqlite:<path> (embedded, created on first start) or postgres://…',
    parse: databaseUrl,
    file: true,
  },
  { key: 'databasePoolSize', env: 'DATABASE_POOL_SIZE', flag: 'database-pool-size', default: '10', doc: 'PostgreSQL connections per process: each --workers worker has its own pool (at least 2: one is always kept from streamed lists)', parse: integer(2, 1000) },
  {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    flag: 'log-level',
    default: 'info',
    doc: `pino level: ${LOG_LEVELS.join(', ')}`,
    parse: (raw) => {
      const level = LOG_LEVELS.find((candidate) => candidate === raw);
      if (level === undefined) throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
      return level;
    },
  },
  { key: 'bodyLimit', env: 'BODY_LIMIT', flag: 'body-limit', default: '16384', doc: 'largest request body in bytes', parse: integer(64, 16 * 1024 * 1024) },
  { key: 'bootstrapToken', env: 'BOOTSTRAP_TOKEN', flag: 'bootstrap-token', default: 'true', doc: 'false stops the first-start admin token', parse: boolean },
  { key: 'jwtSecret', env: 'JWT_SECRET', flag: 'jwt-secret', default: undefined, doc: 'HS256 shared secret (development); enables JWTs', parse: optional(nonEmpty), file: true },
  { key: 'jwtJwksUrl', env: 'JWT_JWKS_URL', flag: 'jwt-jwks-url', default: undefined, doc: 'JWKS address of the identity provider; enables JWTs', parse: optional(httpUrl) },
  { key: 'jwtIssuer', env: 'JWT_ISSUER', flag: 'jwt-issuer', default: undefined, doc: 'checked against the iss claim when set', parse: optional(exactName) },
  { key: 'jwtAudience', env: 'JWT_AUDIENCE', flag: 'jwt-audience', default: undefined, doc: 'checked against the aud claim when set (comma-separated to accept several)', parse: optional(list) },
  { key: 'jwtOwnerClaim', env: 'JWT_OWNER_CLAIM', flag: 'jwt-owner-claim', default: 'sub', doc: "the JWT claim that names a plant's owner", parse: exactName },
  { key: 'corsOrigins', env: 'CORS_ORIGINS', flag: 'cors-origins', default: '', doc: 'comma-separated origins allowed by CORS (none by default)', parse: origins },
  {
    key: 'rateLimit',
    env: 'RATE_LIMIT',
    flag: 'rate-limit',
    default: '',
    doc: 'requests per owner per window of at most 24h, e.g. 100/1s (off by default; per process unless REDIS_URL is set)',
    parse: optional(parseRateLimit),
  },
  { key: 'redisUrl', env: 'REDIS_URL', flag: 'redis-url', default: '', doc: 'Redis that holds the RATE_LIMIT counters for all processes and instances', parse: optional(redisUrl), file: true },
  { key: 'redisKeyPrefix', env: 'REDIS_KEY_PREFIX', flag: 'redis-key-prefix', default: DEFAULT_REDIS_KEY_PREFIX, doc: "prefix of plantstore's keys in Redis", parse: nonEmpty },
  { key: 'streamsPerOwner', env: 'STREAMS_PER_OWNER', flag: 'streams-per-owner', default: '4', doc: 'streamed lists (GET /plants without limit, or over 1000) one owner may have open at once; past it 429', parse: integer(1, 1000) },
  { key: 'streamsPerProcess', env: 'STREAMS_PER_PROCESS', flag: 'streams-per-process', default: '32', doc: 'streamed lists one process serves at once; past it 503', parse: integer(1, 10000) },
  { key: 'streamDeadlineMs', env: 'STREAM_DEADLINE', flag: 'stream-deadline', default: '5m', doc: 'longest a streamed list may take, however fast it is read, e.g. 5m (at most 24h)', parse: durationSetting },
  { key: 'workers', env: 'WORKERS', flag: 'workers', default: '1', doc: 'processes serving one port (node cluster)', parse: integer(1, 256) },
  {
    key: 'responseBatching',
    env: 'RESPONSE_BATCHING',
    flag: 'response-batching',
    default: 'true',
    doc: "write each event-loop turn's responses together at its end (false: each at once)",
    parse: boolean,
  },
];

const SECRET_SETTINGS: ReadonlySet<keyof Settings> = new Set(['jwtSecret']);
/** Settings whose value may carry a password. */
const CREDENTIAL_SETTINGS: ReadonlySet<keyof Settings> = new Set(['databaseUrl', 'redisUrl', 'jwtJwksUrl']);

/**
 * A setting's value as an error line may show it: secrets and whatever came from a secrets
 * file hidden; a URL that may carry a password shown only when it parses with a host, and
 * then with the password masked.
 */
function shown(key: keyof Settings, raw: string, fromSecretsFile: boolean): string {
  if (SECRET_SETTINGS.has(key) || fromSecretsFile) return '<hidden>';
  if (!CREDENTIAL_SETTINGS.has(key) || raw.startsWith('sqlite:')) return JSON.stringify(raw);
  const masked = /^[a-z][a-z0-9+.-]*:\/\/[^/]/i.test(raw) ? maskedUrl(raw) : undefined;
  return masked === undefined ? '<hidden: not a URL>' : JSON.stringify(masked);
}

/**
 * The value of `<env>_FILE`'s file, for settings that take one: the container-secrets
 * convention, which keeps a secret out of the environment. Line breaks at the end are dropped
 * (editors and `echo` add one). Undefined when `<env>_FILE` is unset.
 */
function fromFile(spec: SettingSpec<keyof Settings>, env: NodeJS.ProcessEnv): string | undefined {
  const fileVariable = `${spec.env}_FILE`;
  const path = spec.file === true ? env[fileVariable] : undefined;
  if (path === undefined || path === '') return undefined;
  // Empty counts as unset, so that a default the image or unit sets can be cleared for the file.
  if (env[spec.env] !== undefined && env[spec.env] !== '') {
    throw new SettingError(`${spec.env} and ${fileVariable} are both set: keep one of them`);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new SettingError(`${fileVariable}=${JSON.stringify(path)} cannot be read (${code}); point it at a readable file`);
  }
  const value = text.replace(/[\r\n]+$/, '');
  // A secret that was not mounted: starting without the feature would hide the mistake.
  if (value.trim() === '') throw new SettingError(`${fileVariable}=${JSON.stringify(path)} is empty; put the value in the file, or unset ${fileVariable}`);
  return value;
}

/**
 * Reads every setting from flags (by setting key) over the environment over the default.
 * With `only`, the other settings keep their defaults, so a command is not stopped by a
 * setting it does not use. Throws SettingError naming the first bad one.
 */
export function loadSettings(
  env: NodeJS.ProcessEnv,
  flags: Partial<Record<keyof Settings, string>> = {},
  only?: readonly (keyof Settings)[],
): Settings {
  const result: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    const used = only === undefined || only.includes(spec.key);
    const fromFlag = used ? flags[spec.key] : undefined;
    // A flag wins over the environment: a secrets file it overrides is not read at all.
    const fromEnvFile = used && fromFlag === undefined ? fromFile(spec, env) : undefined;
    const fromEnv = used ? (fromEnvFile ?? env[spec.env]) : undefined;
    const raw = fromFlag ?? fromEnv ?? spec.default;
    const envSource = fromEnvFile !== undefined ? `${spec.env}_FILE's file` : spec.env;
    const source = fromFlag !== undefined ? `--${spec.flag}` : fromEnv !== undefined ? envSource : `default of ${spec.env}`;
    try {
      result[spec.key] = raw === undefined ? undefined : spec.parse(raw);
    } catch (error) {
      throw new SettingError(`${source}=${shown(spec.key, raw ?? '', fromEnvFile !== undefined && fromFlag === undefined)} ${(error as Error).message}`);
    }
  }
  const settings = result as unknown as Settings;
  if (settings.jwtSecret !== undefined && settings.jwtJwksUrl !== undefined) {
    throw new SettingError('JWT_SECRET and JWT_JWKS_URL are both set: choose one source of JWT keys');
  }
  if (settings.jwtSecret !== undefined && Buffer.byteLength(settings.jwtSecret) < 32) {
    throw new SettingError('JWT_SECRET must be at least 32 bytes long for HS256');
  }
  if (settings.jwtAudience !== undefined && settings.jwtAudience.length === 0) {
    throw new SettingError('JWT_AUDIENCE names no audience: give one, or several separated by commas');
  }
  if (settings.jwtJwksUrl !== undefined) checkKeySetSettings(settings.jwtJwksUrl, settings);
  // Claim checks without a key source usually mean a misspelt JWT_JWKS_URL: say so rather than refuse every JWT.
  const jwtChecks = [
    settings.jwtIssuer !== undefined && 'JWT_ISSUER',
    settings.jwtAudience !== undefined && 'JWT_AUDIENCE',
    settings.jwtOwnerClaim !== 'sub' && 'JWT_OWNER_CLAIM',
  ].filter((name) => name !== false);
  if (settings.jwtSecret === undefined && settings.jwtJwksUrl === undefined && jwtChecks.length > 0) {
    throw new SettingError(`${jwtChecks.join(' and ')} set, but JWTs are off: set JWT_JWKS_URL (or JWT_SECRET) too, or unset them`);
  }
  // Redis holds only the rate limit's counters: without RATE_LIMIT (a misspelt name, say) it would go unused.
  if (settings.redisUrl !== undefined && settings.rateLimit === undefined) {
    throw new SettingError('REDIS_URL set, but RATE_LIMIT is off: Redis only holds its counters; set RATE_LIMIT too, or unset REDIS_URL');
  }
  if (settings.redisUrl === undefined && settings.redisKeyPrefix !== DEFAULT_REDIS_KEY_PREFIX) {
    throw new SettingError('REDIS_KEY_PREFIX set, but REDIS_URL is not: the prefix names keys in Redis; set REDIS_URL too, or unset REDIS_KEY_PREFIX');
  }
  return settings;
}
