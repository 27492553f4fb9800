/**
 * Test helpers: start a real plantstore on port 0 (in this process) against a fresh SQLite
 * file or the PostgreSQL server named by TEST_DATABASE_URL, and make users with tokens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { pino } from 'pino';
import type { Logger } from '../../src/logger.js';
import { issueToken } from '../../src/auth/api-tokens.js';
import { loadSettings, type Settings } from '../../src/settings.js';
import { startServer, type RunningServer } from '../../src/server.js';

export type StoreKind = 'sqlite' | 'postgres';

/** The stores the contract runs against here: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export function storeKinds(): StoreKind[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

let warned = false;
/** Says once why the PostgreSQL runs are skipped. */
export function postgresUrlOrSkipReason(): { url?: string; reason?: string } {
  const url = process.env.TEST_DATABASE_URL;
  if (url) return { url };
  if (!warned) {
    warned = true;
    process.stdout.write('# PostgreSQL tests skipped: TEST_DATABASE_URL is not set\n');
  }
  return { reason: 'TEST_DATABASE_URL is not set' };
}

export interface TestServer {
  url: string;
  running: RunningServer;
  settings: Settings;
  /** A fresh user (unique name) with a token; scopes read+write unless readOnly. */
  user(options?: { name?: string; readOnly?: boolean; expiresInMs?: number }): Promise<TestUser>;
}

export interface TestUser {
  name: string;
  token: string;
  /** fetch with this user's bearer token; JSON-encodes `json` when given. */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

export function uniqueName(prefix = 'user'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/**
 * A fresh directory, removed after the test. After-hooks run in the order they were added, so a
 * store opened in it later is still open then: the removal retries while its threads finish.
 */
export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

export async function startTestServer(t: TestContext, kind: StoreKind = 'sqlite', overrides: Record<string, string> = {}, logger: Logger = pino({ level: 'silent' })): Promise<TestServer> {
  const dir = kind === 'postgres' ? undefined : mkdtempSync(join(tmpdir(), 'plantstore-test-'));
  const databaseUrl = dir === undefined ? (process.env.TEST_DATABASE_URL as string) : `sqlite:${join(dir, 'plantstore.db')}`;
  const settings = loadSettings({}, { port: '0', databaseUrl, bootstrapToken: 'false', logLevel: 'silent', ...overrides });
  const removeDir = () => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  };
  const running = await startServer(settings, { logger }).catch((error: unknown) => {
    removeDir();
    throw error;
  });
  // One hook, so that the server is closed before its directory is removed.
  t.after(async () => {
    try {
      await running.close();
    } finally {
      removeDir();
    }
  });
  const url = running.url;
  return {
    url,
    running,
    settings,
    async user(options = {}) {
      const name = options.name ?? uniqueName();
      const issued = await issueToken(running.store, { user: name, readOnly: options.readOnly, expiresInMs: options.expiresInMs });
      const token = issued?.token as string;
      return {
        name,
        token,
        request: (path, init = {}) => authorizedFetch(url + path, token, init),
      };
    },
  };
}

export function authorizedFetch(url: string, token: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
  let body = init.body;
  if (init.json !== undefined) {
    body = typeof init.json === 'string' ? init.json : JSON.stringify(init.json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  return fetch(url, { ...init, headers, body });
}
