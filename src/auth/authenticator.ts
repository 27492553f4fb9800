/**
 * Who is calling, from the Authorization header. Bearer parsing follows RFC 6750: the scheme is
 * case-insensitive, the token must be a b64token, and each kind of failure gets its own
 * WWW-Authenticate header.
 */
import { errors } from '../errors.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import type { CredentialVerifier, Principal, Scope } from './principal.js';

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The token in an Authorization header; throws 401 when there is none or it is malformed. */
function bearerToken(header: string | undefined): string {
  if (header === undefined) throw errors.missingCredentials();
  const space = header.indexOf(' ');
  const scheme = space === -1 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== 'bearer') throw errors.missingCredentials();
  const token = space === -1 ? '' : header.slice(space + 1).trim();
  if (token === '') throw errors.missingCredentials();
  if (!B64TOKEN.test(token)) throw errors.invalidToken();
  return token;
}

/** Checks a request's credentials against every enabled kind of token, then the scope. */
export class Authenticator {
  constructor(private readonly verifiers: readonly CredentialVerifier[]) {}

  /** The caller, if its token is valid and has `scope`; otherwise an ApiError, thrown or rejected. */
  authorize(header: string | undefined, scope: Scope): MaybePromise<Principal> {
    const token = bearerToken(header);
    return andThen(this.verifierFor(token).verify(token), (principal) => withScope(principal, scope));
  }

  private verifierFor(token: string): CredentialVerifier {
    for (const verifier of this.verifiers) if (verifier.accepts(token)) return verifier;
    throw errors.invalidToken();
  }
}

function withScope(principal: Principal, scope: Scope): MaybePromise<Principal> {
  if (principal.scopes.has(scope)) return principal;
  const { pending } = principal;
  if (pending === undefined) throw errors.insufficientScope(scope);
  // A revoked token is answered 401, not 403: check it before refusing the scope.
  return andThen(pending.confirm(), () => {
    throw errors.insufficientScope(scope);
  });
}
