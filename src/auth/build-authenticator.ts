import type { Logger } from '../logger.js';
import type { Settings } from '../settings.js';
import type { TokenStore } from '../store/store.js';
import { ApiTokenVerifier } from './api-tokens.js';
import { Authenticator } from './authenticator.js';
import { JwksCache } from './jwks-cache.js';
import { JwtVerifier } from './jwt.js';
import type { CredentialVerifier } from './principal.js';

/** API tokens always; JWTs when JWT_SECRET or JWT_JWKS_URL is set. */
export function buildAuthenticator(settings: Settings, store: TokenStore, logger: Logger): Authenticator {
  const verifiers: CredentialVerifier[] = [
    new ApiTokenVerifier(store, (error) => logger.warn({ err: error }, 'could not record token use')),
  ];
  const jwt = buildJwtVerifier(settings, logger);
  if (jwt !== undefined) verifiers.push(jwt);
  return new Authenticator(verifiers);
}

function buildJwtVerifier(settings: Settings, logger: Logger): JwtVerifier | undefined {
  const claims = { issuer: settings.jwtIssuer, audience: settings.jwtAudience, ownerClaim: settings.jwtOwnerClaim };
  if (settings.jwtSecret !== undefined) {
    logger.info({ ownerClaim: claims.ownerClaim }, 'JWTs accepted, signed with the shared HS256 secret (JWT_SECRET)');
    return new JwtVerifier({ ...claims, keys: { secret: settings.jwtSecret } });
  }
  if (settings.jwtJwksUrl === undefined) return undefined;
  const url = new URL(settings.jwtJwksUrl);
  const jwks = new JwksCache(url, {
    // An outage is an operational fact, not a bug: one line with the reason, no stack.
    onFetchFailed: (error) =>
      logger.warn(
        { reason: error.message },
        'cannot fetch the identity provider key set (JWT_JWKS_URL): tokens whose key is not cached get 503 until it answers',
      ),
  });
  logger.info({ jwks: `${url.origin}${url.pathname}`, ownerClaim: claims.ownerClaim }, 'JWTs accepted, signed with the keys of JWT_JWKS_URL');
  return new JwtVerifier({ ...claims, keys: { jwks } });
}
