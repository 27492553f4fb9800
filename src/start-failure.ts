/**
 * Start failures an operator can fix, each told as one line that names the cause and the
 * setting to change. The CLI prints the line and exits 1: no stack trace reaches the user.
 */
import { accessSync, constants } from 'node:fs';
import { dirname } from 'node:path';
import { parse as parsePostgresUrl } from 'pg-connection-string';
import { StoreUnavailableError } from './errors.js';
import { BUSY_TIMEOUT_MS, sqlitePath } from './store/sqlite/connection.js';

/** A start that cannot succeed as configured; the message is the line to print. */
export class StartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartError';
  }
}

/**
 * Refuses a database whose schema a newer plantstore migrated: this build would read and write
 * tables it does not know, and a migration of the newer one may have changed what they mean.
 */
export function refuseNewerSchema(found: number, newest: number): void {
  if (found > newest) {
    throw new StartError(
      `the database's schema is version ${found}, made by a newer plantstore; this one knows versions up to ${newest}: run the newer plantstore, or restore a backup made before the upgrade`,
    );
  }
}

/** The fields node, pg and better-sqlite3 put on their errors, all optional. */
interface Detail {
  message: string;
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  path?: unknown;
  severity?: unknown;
}

function details(error: unknown): Detail[] {
  const chain: Detail[] = [];
  for (let current = error; current instanceof Error && chain.length < 5; current = current.cause) chain.push(current);
  return chain;
}

/** The error PostgreSQL itself sent, if any (pg's errors carry a severity beside the SQLSTATE code). */
function serverError(error: unknown): (Detail & { code: string }) | undefined {
  return details(error).find((detail): detail is Detail & { code: string } => detail.severity !== undefined && typeof detail.code === 'string');
}

/** pg's words (it gives no code) for a server that answered no to TLS: it has none to offer. */
const NO_TLS = 'The server does not support SSL connections';

function refusedTls(error: unknown): boolean {
  return details(error).some((detail) => detail.message === NO_TLS);
}

/** The codes node gives a server's TLS certificate that fails verification: OpenSSL's, and node's own for the host name. */
const CERTIFICATE_REFUSALS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function refusedCertificate(error: unknown): (Detail & { code: string }) | undefined {
  return details(error).find((detail): detail is Detail & { code: string } => typeof detail.code === 'string' && CERTIFICATE_REFUSALS.has(detail.code));
}

/** pg's words when a server asks for a SCRAM password and the client has none. */
const NO_PASSWORD = 'client password must be a string';

function missingPassword(error: unknown): boolean {
  return details(error).some((detail) => detail.message.includes(NO_PASSWORD));
}

/**
 * PostgreSQL errors that waiting will not change: the database does not exist (3D000), the
 * role does not exist or may not connect (28000), the password is wrong (28P01), the URL asks
 * for TLS and the server has none, the server asks for a password the URL lacks, or the
 * server's certificate fails verification.
 */
export function isPermanentDatabaseFailure(error: unknown): boolean {
  const code = serverError(error)?.code;
  return refusedTls(error) || refusedCertificate(error) !== undefined || missingPassword(error) || (code !== undefined && (code === '3D000' || code.startsWith('28')));
}

const LISTEN_SYSCALLS = new Set(['listen', 'bind']);

function listenFailure(detail: Detail, host: string, port: number): string | undefined {
  const address = typeof detail.address === 'string' ? detail.address : host;
  // An IPv6 address in brackets, as in a URL, so that the port stands apart.
  const where = `${address.includes(':') ? `[${address}]` : address}:${typeof detail.port === 'number' ? detail.port : port}`;
  if (detail.code === 'EADDRINUSE') {
    return `cannot listen on ${where}: the port is in use by another process; stop it or choose another port with PORT or --port`;
  }
  if (detail.code === 'EADDRNOTAVAIL') {
    return `cannot listen on ${where}: ${host} is not an address of this machine; set HOST or --host to one of its addresses (0.0.0.0 for all)`;
  }
  if (detail.code === 'EACCES' && LISTEN_SYSCALLS.has(String(detail.syscall))) {
    return `cannot listen on ${where}: this user may not use ports below 1024; choose another port with PORT or --port`;
  }
  // The database's host name fails to resolve the same way: only HOST's is a listen failure.
  if (detail.syscall === 'getaddrinfo' && detail.hostname === host) {
    return `cannot listen on ${host}: the name does not resolve (${String(detail.code)}); set HOST or --host to an address of this machine`;
  }
  return undefined;
}

/** SQLite says only that it cannot open; the folder's mount may be why, whoever the user is. */
function onReadOnlyFileSystem(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EROFS';
  }
}

function sqliteFailure(detail: Detail, file: string): string | undefined {
  const code = typeof detail.code === 'string' ? detail.code : '';
  const change = 'or set DATABASE_URL to sqlite:<path> in a folder this user can write';
  if (typeof detail.syscall === 'string' && typeof detail.path === 'string') {
    return `cannot create the data folder ${detail.path} for ${file} (${code}: ${detail.syscall} failed); create it writable for this user, ${change}`;
  }
  // Extended codes (SQLITE_READONLY_DIRECTORY, SQLITE_CANTOPEN_ISDIR, …) say the same more precisely.
  if (code.startsWith('SQLITE_CANTOPEN')) {
    if (onReadOnlyFileSystem(dirname(file))) {
      return `cannot open ${file} (${code}): its folder is on a read-only file system (under systemd's ProtectSystem=strict, allow it with ReadWritePaths=); ${change}`;
    }
    return `cannot open ${file} (${code}): it must be a file, in a folder that exists and that this user can write; fix that, ${change}`;
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return `${file} or its folder is read-only for this user (${code}); make both writable, ${change}`;
  }
  if (code.startsWith('SQLITE_BUSY')) {
    return `${file} stayed locked by another process for ${BUSY_TIMEOUT_MS / 1000} s (${code}): a server, a backup or a restore; stop it or wait for it, ${change}`;
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return `${file} is not a readable SQLite database (${code}); restore it from a backup, ${change}`;
  }
  if (code.startsWith('SQLITE_')) return `SQLite failed on ${file} (${code}: ${detail.message}); fix that, ${change}`;
  return undefined;
}

function postgresFailure(error: unknown, databaseUrl: string): string | undefined {
  // Read as pg reads it: the host, port and user may also come in the query (a Unix socket's folder in ?host=).
  let config: ReturnType<typeof parsePostgresUrl>;
  try {
    config = parsePostgresUrl(databaseUrl);
  } catch {
    return undefined;
  }
  const server = `PostgreSQL at ${config.host || 'localhost'}:${config.port || '5432'}`;
  const database = config.database ?? '';
  const user = config.user ?? '';
  const noPassword = `${server} asks for a password, and DATABASE_URL has none; add it (postgres://user:password@host/database)`;
  const sent = serverError(error);
  const code = sent?.code;
  if (code === '3D000') {
    return `${server} has no database "${database}" (3D000); create it (createdb ${database}) or fix the database name in DATABASE_URL`;
  }
  // PostgreSQL answers an unknown user with 28P01 too, so as not to tell which names exist.
  if (code === '28P01') return config.password ? `${server} refused the password of user "${user}" (28P01); fix the user name or password in DATABASE_URL` : noPassword;
  if (code !== undefined && code.startsWith('28')) {
    // pg_hba.conf's hostnossl … reject, or hostssl only, for this user.
    if (sent?.message.includes('no encryption')) {
      return `${server} refused user "${user}" without TLS (${code}: ${sent.message}); set sslmode=verify-full in DATABASE_URL, with sslrootcert=<file> for a private CA`;
    }
    return `${server} refused user "${user}" (${code}: ${sent?.message}); fix the user in DATABASE_URL, or create the role or allow it in pg_hba.conf`;
  }
  if (code !== undefined) return `${server} failed (${code}: ${sent?.message})`;
  if (missingPassword(error)) return noPassword;
  if (refusedTls(error)) {
    const sslmode = new URLSearchParams(databaseUrl.split('?')[1] ?? '').get('sslmode');
    const asked = sslmode === null ? 'TLS' : `sslmode=${sslmode}`;
    return `${server} does not support TLS, but DATABASE_URL asks for ${asked}; turn TLS on in the server (ssl = on) or change sslmode in DATABASE_URL`;
  }
  const certificate = refusedCertificate(error);
  if (certificate !== undefined) {
    return `${server} sent a TLS certificate that fails verification (${certificate.code}: ${certificate.message}); set sslrootcert=<file> in DATABASE_URL to the certificate of the CA that signed it, and use the host name the certificate names`;
  }
  const [, cause] = details(error);
  if (cause === undefined) return undefined;
  const reason = typeof cause.code === 'string' ? cause.code : cause.message;
  return `${server} is unreachable (${reason}); check the host and port in DATABASE_URL and that the server runs`;
}

/** The shortest name of what went wrong: an error code such as ECONNREFUSED, else the deepest message. */
export function briefReason(error: unknown): string {
  const chain = details(error);
  const coded = chain.find((detail) => typeof detail.code === 'string');
  return typeof coded?.code === 'string' ? coded.code : (chain.at(-1)?.message ?? String(error));
}

/** One line for a failure at start, or undefined when it is none that an operator could fix by a setting. */
function explainStartFailure(error: unknown, settings: { databaseUrl: string; host: string; port: number }): string | undefined {
  for (const detail of details(error)) {
    const line = listenFailure(detail, settings.host, settings.port);
    if (line !== undefined) return line;
  }
  const databaseLine = settings.databaseUrl.startsWith('sqlite:')
    ? details(error)
        .map((detail) => sqliteFailure(detail, sqlitePath(settings.databaseUrl)))
        .find((line) => line !== undefined)
    : error instanceof StoreUnavailableError || serverError(error) !== undefined
      ? postgresFailure(error, settings.databaseUrl)
      : undefined;
  return databaseLine === undefined ? undefined : `cannot use the database: ${databaseLine}`;
}

/** The StartError that explains `error`, or `error` itself when it is none. */
export function asStartError(error: unknown, settings: { databaseUrl: string; host: string; port: number }): unknown {
  if (error instanceof StartError) return error;
  const line = explainStartFailure(error, settings);
  return line === undefined ? error : new StartError(line);
}
