import { hkdfSync, randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Config } from '../../config.js';
import type { Project } from '../../generated/prisma/client.js';

/** Access tokens live one hour; `expires_in` says so (openapi.yaml, `AuthTokens`). */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const ACCESS_TOKEN_AUDIENCE = 'storefront';

/** Who an access token speaks for. */
export interface AccessClaims {
  customerId: string;
  sessionId: string;
}

/**
 * The `iss` this process writes into access tokens and the one it insists on: PUBLIC_URL when set (every
 * process behind one address shares it), else the address the process listens on, which other processes
 * behind the same load balancer do not share, so then any `iss` is accepted (the per-project signature
 * is what proves the token is ours).
 */
export function tokenIssuer(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): { write: string; expect?: string } {
  return { write: config.publicUrl ?? `http://${config.host}:${config.port}`, expect: config.publicUrl };
}

// The project's HS256 key, derived from its server-side secret with HKDF (info names the use), so
// access tokens and cursors never share a key and no second secret has to be stored or rotated apart.
function signingKey(project: Pick<Project, 'id' | 'signingSecret'>): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', project.signingSecret, project.id, 'customer-access-token/v1', 32));
}

/**
 * A signed access token (HS256) with the claims iss (the API's base URL), aud `storefront`, sub (customer id),
 * pid (project id), sid (session family id), jti, iat, exp.
 */
export async function signAccessToken(
  project: Pick<Project, 'id' | 'signingSecret'>,
  issuer: string,
  claims: AccessClaims,
): Promise<string> {
  return new SignJWT({ pid: project.id, sid: claims.sessionId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(issuer)
    .setAudience(ACCESS_TOKEN_AUDIENCE)
    .setSubject(claims.customerId)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
    .sign(signingKey(project));
}

/**
 * The claims of an access token that this project signed and that has not expired, with `issuer` as its
 * iss when given; null for anything else (malformed, other algorithm, other project, other issuer or
 * audience, expired).
 */
export async function verifyAccessToken(
  project: Pick<Project, 'id' | 'signingSecret'>,
  issuer: string | undefined,
  token: string,
): Promise<AccessClaims | null> {
  return (await verifiedAccessToken(project, issuer, token))?.value ?? null;
}

/** As verifyAccessToken, with the instant (epoch milliseconds) the token expires, for caching what it proved until then. */
export async function verifiedAccessToken(
  project: Pick<Project, 'id' | 'signingSecret'>,
  issuer: string | undefined,
  token: string,
): Promise<{ value: AccessClaims; expiresAtMs: number } | null> {
  try {
    const { payload } = await jwtVerify(token, signingKey(project), {
      algorithms: ['HS256'],
      issuer,
      audience: ACCESS_TOKEN_AUDIENCE,
      requiredClaims: ['iss', 'sub', 'jti', 'iat', 'exp'],
    });
    if (payload.pid !== project.id || typeof payload.sid !== 'string' || !payload.sub) return null;
    return { value: { customerId: payload.sub, sessionId: payload.sid }, expiresAtMs: payload.exp! * 1000 };
  } catch {
    return null;
  }
}
