import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Reader } from './codec-operators';

// Operators behind the Temporal UI's single sign-on: with "pass access token" on, the UI sends the user's
// OIDC access token (a JWT) to the codec server. It is verified against the issuer's published keys
// (signature, issuer, audience, expiry; asymmetric algorithms only) and the user may read the scopes its
// scopes claim lists: tenant ids, or `*` for every tenant and the platform.

export interface CodecOidcSettings {
  issuer: string;
  audience: string;
  /** The claim listing the user's scopes: an array, or a space-separated string (as `scope` is). */
  scopesClaim: string;
  /** The issuer's key set; when absent, the `jwks_uri` of its discovery document. */
  jwksUrl?: string;
}

/** Asymmetric only: a token signed with a shared secret (HS256) or unsigned (`none`) is never taken. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const TENANT_SCOPE = /^ten_[A-Za-z0-9_]{1,64}$/;

/** A token's scopes: `*` and tenant ids; anything else in the claim (other apps' roles) is ignored. */
export function scopesOf(payload: JWTPayload, claim: string): Set<string> {
  const raw = payload[claim];
  const list = typeof raw === 'string' ? raw.split(/\s+/) : Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : [];
  return new Set(list.filter((s) => s === '*' || TENANT_SCOPE.test(s)));
}

/** Who the audit line names: the e-mail or user name the issuer gives, else the subject. */
const nameOf = (p: JWTPayload) =>
  [p.email, p.preferred_username, p.sub].find((v): v is string => typeof v === 'string' && v.length > 0) ?? 'unknown';

/** What jose throws about the token itself (not about reaching the issuer). */
const REFUSALS = [
  joseErrors.JWTExpired,
  joseErrors.JWTClaimValidationFailed,
  joseErrors.JWTInvalid,
  joseErrors.JWSInvalid,
  joseErrors.JWSSignatureVerificationFailed,
  joseErrors.JOSEAlgNotAllowed,
  joseErrors.JOSENotSupported,
  joseErrors.JWKSNoMatchingKey,
  joseErrors.JWKSMultipleMatchingKeys,
];

export type OidcOperatorOf = (token: string) => Promise<Reader | null>;

/** Verifies an access token and answers the operator it names, or null when it does not verify. */
export function oidcOperators(settings: CodecOidcSettings, keys?: JWTVerifyGetKey): OidcOperatorOf {
  let keySet = keys;
  const resolveKeys = async (): Promise<JWTVerifyGetKey> => {
    if (keySet) return keySet;
    keySet = createRemoteJWKSet(new URL(settings.jwksUrl ?? (await discoverJwksUri(settings.issuer))));
    return keySet;
  };
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, await resolveKeys(), {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
        clockTolerance: 30,
      });
      return { name: `oidc:${nameOf(payload)}`, scopes: scopesOf(payload, settings.scopesClaim) };
    } catch (err) {
      // A token that does not verify is an unknown operator; the issuer's keys out of reach is not (thrown).
      if (REFUSALS.some((E) => err instanceof E)) return null;
      throw err;
    }
  };
}

/** The key set's address from the issuer's OpenID discovery document. */
async function discoverJwksUri(issuer: string): Promise<string> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!res.ok) throw new Error(`OIDC discovery ${url}: HTTP ${res.status}`);
  const doc = (await res.json()) as { jwks_uri?: unknown };
  if (typeof doc.jwks_uri !== 'string') throw new Error(`OIDC discovery ${url}: no jwks_uri`);
  return doc.jwks_uri;
}

/** A bearer token shaped like a JWT (three base64url parts), as opposed to a static operator token. */
export const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
