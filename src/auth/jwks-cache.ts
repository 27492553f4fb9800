/**
 * The identity provider's key set (JWKS), fetched on first use and kept in memory.
 *
 * jose's createRemoteJWKSet is not used: its cooldown counts only from the last successful
 * fetch, so while the provider is down every request with an unknown `kid` refetches and waits
 * for the timeout; and once its cache is older than `cacheMaxAge` a failed refresh fails every
 * token, even those whose key is cached. This cache keeps cached keys working during an outage,
 * refetches at most once per interval whatever the outcome, and tells "no such key" (401) apart
 * from "cannot know yet" (503).
 */
import { createLocalJWKSet, errors as joseErrors, type CryptoKey, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';

/** How long one fetch of the key set may take. */
const JWKS_FETCH_TIMEOUT_MS = 3_000;
/** The set is refetched at most this often, so a rotated key works within this time. */
export const JWKS_REFETCH_INTERVAL_MS = 5_000;
/** Keys older than this are refreshed in the background, so a key the provider dropped stops working. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
const MAX_BODY_BYTES = 1024 * 1024;

/** The key set cannot be fetched now and no cached key fits the token; retry after the given seconds. */
export class KeySetUnavailableError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('the identity provider key set cannot be fetched');
    this.name = 'KeySetUnavailableError';
  }
}

/** Why one fetch of the key set failed, in words an operator can act on. */
export class JwksFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JwksFetchError';
  }
}

export interface JwksCacheOptions {
  fetchTimeoutMs?: number;
  refetchIntervalMs?: number;
  maxAgeMs?: number;
  /** Told each time a fetch fails (at most once per refetch interval); for the log. */
  onFetchFailed?: (error: JwksFetchError) => void;
}

type LocalKeySet = ReturnType<typeof createLocalJWKSet>;

/** A remote JWKS behind a jose key resolver (`getKey`), with the refetch rules above. */
export class JwksCache {
  private keys: LocalKeySet | undefined;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private lastAttemptFailed = false;
  private pending: Promise<void> | undefined;
  private readonly fetchTimeoutMs: number;
  private readonly refetchIntervalMs: number;
  private readonly maxAgeMs: number;
  private readonly onFetchFailed: (error: JwksFetchError) => void;

  constructor(
    private readonly url: URL,
    options: JwksCacheOptions = {},
  ) {
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? JWKS_FETCH_TIMEOUT_MS;
    this.refetchIntervalMs = options.refetchIntervalMs ?? JWKS_REFETCH_INTERVAL_MS;
    this.maxAgeMs = options.maxAgeMs ?? JWKS_MAX_AGE_MS;
    this.onFetchFailed = options.onFetchFailed ?? (() => undefined);
  }

  /** The key for a token's header; throws KeySetUnavailableError, or jose's JWKSNoMatchingKey when the kid is unknown. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    if (this.keys === undefined) {
      await this.refresh();
    } else if (Date.now() - this.fetchedAt > this.maxAgeMs) {
      // Stale keys keep answering while the refresh runs; a failure has already been reported.
      this.refresh().catch(() => undefined);
    }
    try {
      return await this.current()(header, token);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw error;
      // An unknown kid may be a freshly rotated key: look again, unless we looked moments ago.
      await this.refresh();
      return this.current()(header, token);
    }
  };

  private current(): LocalKeySet {
    if (this.keys === undefined) throw new KeySetUnavailableError(this.retryAfterSeconds());
    return this.keys;
  }

  /**
   * Fetches the set unless a fetch ran within the refetch interval (or is running: then joins it).
   * Rejects with KeySetUnavailableError when this fetch, or the recent one, failed.
   */
  refresh(): Promise<void> {
    if (this.pending !== undefined) return this.pending;
    if (Date.now() - this.attemptedAt < this.refetchIntervalMs) {
      return this.lastAttemptFailed ? Promise.reject(new KeySetUnavailableError(this.retryAfterSeconds())) : Promise.resolve();
    }
    this.attemptedAt = Date.now();
    const pending = this.fetchKeys().then(
      (keys) => {
        this.keys = keys;
        this.fetchedAt = Date.now();
        this.lastAttemptFailed = false;
      },
      (error: unknown) => {
        this.lastAttemptFailed = true;
        this.onFetchFailed(error instanceof JwksFetchError ? error : new JwksFetchError(String(error), { cause: error }));
        throw new KeySetUnavailableError(this.retryAfterSeconds());
      },
    );
    this.pending = pending.finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Whole seconds until the next fetch may run; at least 1. */
  private retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.attemptedAt + this.refetchIntervalMs - Date.now()) / 1000));
  }

  private async fetchKeys(): Promise<LocalKeySet> {
    const signal = AbortSignal.timeout(this.fetchTimeoutMs);
    const where = `${this.url.origin}${this.url.pathname}`;
    let response: Response;
    try {
      // Redirects are not followed: the key set must come from the address the operator configured.
      response = await fetch(this.url, { signal, redirect: 'manual', headers: { accept: 'application/jwk-set+json, application/json' } });
    } catch (error) {
      throw new JwksFetchError(`GET ${where} ${describeFailure(error, this.fetchTimeoutMs)}`, { cause: error });
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new JwksFetchError(`GET ${where} answered HTTP ${response.status}, not 200 with a key set`);
    }
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(await readBounded(response, where)));
    } catch (error) {
      if (error instanceof JwksFetchError) throw error;
      throw new JwksFetchError(`GET ${where} ${signal.aborted ? describeFailure(error, this.fetchTimeoutMs) : 'did not send JSON'}`, { cause: error });
    }
    try {
      return createLocalJWKSet(json as JSONWebKeySet);
    } catch (error) {
      throw new JwksFetchError(`GET ${where} sent JSON that is not a JWK set ({"keys": [...]})`, { cause: error });
    }
  }
}

/**
 * The body, given up on as soon as it passes MAX_BODY_BYTES (after fetch has decompressed it):
 * a key set is a few KB, and a hostile or broken endpoint must not fill the memory.
 */
async function readBounded(response: Response, where: string): Promise<Buffer> {
  const tooLarge = () => new JwksFetchError(`GET ${where} sent more than ${MAX_BODY_BYTES} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early cancels the stream, and with it the download.
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `did not answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? error.cause : undefined;
  const code = cause instanceof Error && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
  return `failed: ${code ?? (error instanceof Error ? error.message : String(error))}`;
}
