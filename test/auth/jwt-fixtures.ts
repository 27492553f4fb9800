/**
 * JWT test fixtures: signing keys generated in the test, a real JWKS server on 127.0.0.1,
 * and tokens minted with jose (or by hand, for the forgeries jose refuses to make).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { authorizedFetch, uniqueName } from '../helpers/server.js';

export type SigningAlg = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public half as the provider publishes it: kid, alg and use set. */
  publicJwk: JWK;
}

export async function signingKey(alg: SigningAlg = 'RS256', kid = `key-${randomBytes(4).toString('hex')}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicKey, publicJwk };
}

/** The issuer and audience of the test provider's tokens, which a key set from JWT_JWKS_URL needs. */
export const ISSUER = 'https://idp.test';
export const AUDIENCE = 'plantstore';

/** The settings that trust the key set at `jwksUrl` for this provider's tokens. */
export function trustKeySet(jwksUrl: string): Record<string, string> {
  return { jwtJwksUrl: jwksUrl, jwtIssuer: ISSUER, jwtAudience: AUDIENCE };
}

/** Claims of a user allowed to read and write, unless overridden. */
export function userClaims(overrides: JWTPayload = {}): JWTPayload {
  return { sub: uniqueName('jwt'), scope: 'plants:read plants:write', ...overrides };
}

export interface MintOptions {
  /** Extra protected-header parameters (jku, jwk, …), or a kid to use instead of the key's. */
  header?: Record<string, unknown>;
  /** Leave `exp` out (it is 5 minutes ahead otherwise, unless the claims set it). */
  noExpiry?: boolean;
  /** `iat` in seconds since the epoch; now by default. */
  issuedAt?: number;
}

/** A token signed by `key`, with `kid` and `alg` in its header like a provider's, and its ISSUER and AUDIENCE unless `claims` sets them (to undefined: none). */
export async function mint(key: SigningKey, claims: JWTPayload = userClaims(), options: MintOptions = {}): Promise<string> {
  const jwt = new SignJWT({ iss: ISSUER, aud: AUDIENCE, ...claims }).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...options.header }).setIssuedAt(options.issuedAt);
  if (options.noExpiry !== true && claims.exp === undefined) jwt.setExpirationTime('5m');
  return jwt.sign(key.privateKey);
}

/** An unsigned token (`alg: none`), which jose will not produce. */
export function unsignedToken(claims: JWTPayload, header: Record<string, unknown> = { alg: 'none', typ: 'JWT' }): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.`;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A served key set (or any JSON) on 127.0.0.1 that counts the requests it answers. */
export interface JsonServer {
  url: string;
  /** Requests answered since start. */
  fetches: number;
  /** Replace what is served, e.g. to publish a rotated key. */
  publish(keys: readonly SigningKey[]): void;
  /** Stop answering: the port refuses connections, like a provider that is down. */
  stop(): Promise<void>;
  /** Answer again on the same port. */
  restart(): Promise<void>;
}

export async function startJwksServer(t: TestContext, keys: readonly SigningKey[]): Promise<JsonServer> {
  let body = keySet(keys);
  let server: Server | undefined;
  let port = 0;
  const state: JsonServer = {
    url: '',
    fetches: 0,
    publish(next) {
      body = keySet(next);
    },
    async stop() {
      const current = server;
      server = undefined;
      if (current === undefined) return;
      await new Promise<void>((resolve) => {
        current.close(() => resolve());
        current.closeAllConnections();
      });
    },
    async restart() {
      const next = createServer((_req, res) => {
        state.fetches += 1;
        res.setHeader('content-type', 'application/jwk-set+json');
        res.end(body);
      });
      await new Promise<void>((resolve) => next.listen(port, '127.0.0.1', resolve));
      server = next;
      port = (next.address() as AddressInfo).port;
      state.url = `http://127.0.0.1:${port}/.well-known/jwks.json`;
    },
  };
  await state.restart();
  t.after(() => state.stop());
  return state;
}

function keySet(keys: readonly SigningKey[]): string {
  return JSON.stringify({ keys: keys.map((key) => key.publicJwk) });
}

/** fetch against plantstore with a bearer token; JSON-encodes `json` when given. */
export function call(baseUrl: string, token: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  return authorizedFetch(baseUrl + path, token, init);
}

/** The three operations with one token: create a plant, list, delete it. Returns the three statuses. */
export async function roundTrip(baseUrl: string, token: string, id = 1): Promise<{ post: number; get: number; list: unknown; del: number }> {
  const post = await call(baseUrl, token, '/plants', { method: 'POST', json: { id, name: 'Fern' } });
  await post.body?.cancel();
  const got = await call(baseUrl, token, '/plants');
  const list: unknown = got.status === 200 ? await got.json() : await got.body?.cancel();
  const del = await call(baseUrl, token, `/plants/${id}`, { method: 'DELETE' });
  await del.body?.cancel();
  return { post: post.status, get: got.status, list, del: del.status };
}
