/**
 * JWTs from an identity provider: checked against its key set (JWKS) or, for development,
 * an HS256 shared secret. The owner comes from a configurable claim, the scopes from `scope`/`scp`.
 */
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { ApiError, errors } from '../errors.js';
import { KeySetUnavailableError, type JwksCache } from './jwks-cache.js';
import type { CredentialVerifier, Principal } from './principal.js';
import { normalizeUserName } from './user-name.js';

/** Algorithms accepted from a key set; HS256 is never among them, which stops algorithm confusion. */
const JWKS_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
/** Allowed clock skew between plantstore and the identity provider, for `exp`, `nbf` and `iat`. */
const CLOCK_TOLERANCE_SECONDS = 5;

/** A compact JWS: three base64url segments (the last is empty for `alg: none`, rejected later). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** Headers that carry or point to a key: trusting them would let the token choose its own key. */
const KEY_BEARING_HEADERS = ['jwk', 'jku', 'x5u', 'x5c'] as const;
const UNAVAILABLE_MESSAGE =
  "The identity provider's signing keys cannot be fetched right now, so this token cannot be checked; try again shortly.";

export interface JwtVerifierOptions {
  /** Where the signing keys come from: the provider's key set, or a shared HS256 secret. */
  keys: { jwks: JwksCache } | { secret: string };
  issuer?: string;
  audience?: readonly string[];
  /** The claim whose string value is the owner of the caller's plants (`sub` by default). */
  ownerClaim: string;
}

/** Verifies JWT bearer tokens; every rejection is 401 invalid_token, an unreachable provider 503. */
export class JwtVerifier implements CredentialVerifier {
  private readonly options: JWTVerifyOptions;
  /** The HS256 secret's bytes, or the key set's resolver. */
  private readonly key: Uint8Array | JWTVerifyGetKey;

  constructor(private readonly config: JwtVerifierOptions) {
    this.key = 'secret' in config.keys ? new TextEncoder().encode(config.keys.secret) : config.keys.jwks.getKey;
    this.options = {
      algorithms: 'secret' in config.keys ? ['HS256'] : [...JWKS_ALGORITHMS],
      issuer: config.issuer,
      audience: config.audience === undefined ? undefined : [...config.audience],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['exp'],
    };
  }

  accepts(token: string): boolean {
    return COMPACT_JWS.test(token);
  }

  async verify(token: string): Promise<Principal> {
    let payload: JWTPayload;
    try {
      const header = decodeProtectedHeader(token);
      if (KEY_BEARING_HEADERS.some((name) => Object.hasOwn(header, name))) throw errors.invalidToken();
      payload = await this.verifySignatureAndClaims(token, header.kid === undefined);
      // jose checks `iat` only against a maximum age; a token issued after now is refused too.
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) throw errors.invalidToken('it was issued in the future (iat)');
    } catch (error) {
      if (error instanceof KeySetUnavailableError) throw errors.unavailable(UNAVAILABLE_MESSAGE, error.retryAfterSeconds);
      if (error instanceof ApiError) throw error;
      throw errors.invalidToken(claimProblem(error));
    }
    return { owner: ownerOf(payload, this.config.ownerClaim), scopes: scopesOf(payload) };
  }

  private async verifySignatureAndClaims(token: string, withoutKid: boolean): Promise<JWTPayload> {
    try {
      return await this.verifyWithKeys(token);
    } catch (error) {
      // Without `kid` a key is chosen by its type alone, so a key the provider rotated in shows
      // only as a failed signature: look at the set again (at most once per refetch interval).
      const failedSignature = error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSMultipleMatchingKeys;
      if (!withoutKid || !failedSignature || 'secret' in this.config.keys) throw error;
      await this.config.keys.jwks.refresh();
      return this.verifyWithKeys(token);
    }
  }

  private async verifyWithKeys(token: string): Promise<JWTPayload> {
    try {
      return (await jwtVerify(token, this.key, this.options)).payload;
    } catch (error) {
      // A token without `kid` may fit several keys of the set; jose hands them over to try in turn.
      if (!(error instanceof joseErrors.JWKSMultipleMatchingKeys)) throw error;
      for await (const key of error) {
        try {
          return (await jwtVerify(token, key, this.options)).payload;
        } catch (keyError) {
          // The signature held with this key: the claims' failure is the token's answer.
          if (claimProblem(keyError) !== undefined) throw keyError;
        }
      }
      throw error;
    }
  }
}

/**
 * Why a token whose signature holds is refused, for its holder (jose checks the claims only
 * after the signature); undefined for any other failure, which gets the general message.
 */
function claimProblem(error: unknown): string | undefined {
  if (error instanceof joseErrors.JWTExpired) return 'it has expired (exp)';
  if (!(error instanceof joseErrors.JWTClaimValidationFailed)) return undefined;
  if (error.reason === 'missing') return `it has no ${error.claim} claim`;
  if (error.claim === 'aud') return 'its audience (aud) is none this service accepts';
  if (error.claim === 'iss') return 'its issuer (iss) is not the one this service accepts';
  if (error.claim === 'nbf') return 'it is not valid yet (nbf)';
  return `its ${error.claim} claim is not valid`;
}

/**
 * The owner claim's value as a user name; a missing, non-string or unreadable one makes the
 * token invalid, and so does one not written in NFC: the provider tells two identities apart
 * by their exact text, so two spellings of one name must not become one owner.
 */
function ownerOf(payload: JWTPayload, claim: string): string {
  const owner = Object.hasOwn(payload, claim) ? payload[claim] : undefined;
  if (typeof owner !== 'string') throw errors.invalidToken(`its ${claim} claim, which names the owner, is missing or not a string`);
  let name: string;
  try {
    name = normalizeUserName(owner);
  } catch (error) {
    throw errors.invalidToken(`its ${claim} claim cannot name an owner: ${(error as Error).message}`);
  }
  if (name !== owner) throw errors.invalidToken(`its ${claim} claim cannot name an owner: it is not in Unicode NFC`);
  return name;
}

/** Scopes from the space-separated `scope` claim and from `scp` (a string, or an array as Entra and Okta send). */
function scopesOf(payload: JWTPayload): Set<string> {
  const scopes = new Set<string>();
  const addSpaceSeparated = (value: unknown) => {
    if (typeof value !== 'string') return;
    for (const scope of value.split(' ')) if (scope !== '') scopes.add(scope);
  };
  addSpaceSeparated(payload.scope);
  const scp = payload.scp;
  if (Array.isArray(scp)) scp.forEach(addSpaceSeparated);
  else addSpaceSeparated(scp);
  return scopes;
}
