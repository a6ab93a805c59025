import type { Database, Tx } from '../../db/client.js';
import type { Project } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { AppError } from '../../shared/errors.js';
import type { LiveSession, ProcessCaches } from '../../shared/table-version-cache.js';
import { newId } from '../../shared/ids.js';
import { writeTx } from '../../shared/write.js';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken, verifiedAccessToken, type AccessClaims } from './access-token.js';
import { newOpaqueToken, opaqueTokenHash } from './opaque-tokens.js';
import { requireStoreDomain } from './store-domain.js';

/** Refresh tokens live 30 days (openapi.yaml, `AuthTokens`). */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export type SessionEnd = 'logout' | 'reuse' | 'password_reset' | 'password_change' | 'deactivated';

/** The token response: a fresh access token and refresh token of one session. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

const INVALID_REFRESH =
  'Invalid refresh token. It is unknown, expired or used, or its session has ended. Sign in again.';

// A new refresh token of the session, stored as its hash only.
async function issueRefreshToken(tx: Tx, sessionId: string, expiresAt: Date): Promise<string> {
  const token = newOpaqueToken();
  await tx.refreshToken.create({
    data: { id: newId('rtok_'), sessionId, tokenHash: opaqueTokenHash(token), expiresAt },
  });
  return token;
}

/** Starts a session of the customer in the caller's transaction and returns its first tokens. */
export async function startSession(tx: Tx, ctx: Ctx, customerId: string, issuer: string): Promise<TokenPair> {
  const sessionId = newId('sess_');
  const expiresAt = new Date(Date.now() + REFRESH_TOKEN_TTL_MS);
  await tx.customerSession.create({ data: { id: sessionId, projectId: ctx.project.id, customerId, expiresAt } });
  const refreshToken = await issueRefreshToken(tx, sessionId, expiresAt);
  const accessToken = await signAccessToken(ctx.project, issuer, { customerId, sessionId });
  return { accessToken, refreshToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
}

/** Ends the sessions of a customer that are still live (in the caller's transaction). */
export async function endCustomerSessions(tx: Tx, customerId: string, reason: SessionEnd): Promise<void> {
  await tx.customerSession.updateMany({
    where: { customerId, revokedAt: null },
    data: { revokedAt: new Date(), revokedReason: reason },
  });
}

async function findRefreshToken(tx: Tx, ctx: Ctx, token: string) {
  const row = await tx.refreshToken.findUnique({
    where: { tokenHash: opaqueTokenHash(token) },
    include: { session: { include: { customer: { select: { deletedAt: true, status: true } } } } },
  });
  return row && row.session.projectId === ctx.project.id ? row : null;
}

/**
 * Rotation (openapi.yaml, `refreshCustomerToken`): uses the refresh token up and returns new tokens of its
 * session. A token used before ends its whole session (the end commits) and answers 401, as do unknown, expired
 * and ended ones.
 */
export async function refreshSession(ctx: Ctx, token: string, issuer: string): Promise<TokenPair> {
  requireStoreDomain(ctx);
  const pair = await writeTx(ctx, {}, async (tx): Promise<TokenPair | null> => {
    const row = await findRefreshToken(tx, ctx, token);
    if (!row || row.session.revokedAt || row.session.customer.deletedAt) return null;
    if (row.session.customer.status === 'inactive') {
      await endSession(tx, row.sessionId, 'deactivated');
      return null;
    }
    const now = new Date();
    // Conditional, so of two requests racing with one token exactly one wins; the other is a reuse.
    const used = await tx.refreshToken.updateMany({
      where: { id: row.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (used.count === 0) {
      const current = await tx.refreshToken.findUniqueOrThrow({ where: { id: row.id } });
      if (current.usedAt) await endSession(tx, row.sessionId, 'reuse');
      return null;
    }
    // The session lives as long as its newest refresh token.
    const expiresAt = new Date(now.getTime() + REFRESH_TOKEN_TTL_MS);
    await tx.customerSession.update({ where: { id: row.sessionId }, data: { expiresAt } });
    const refreshToken = await issueRefreshToken(tx, row.sessionId, expiresAt);
    const accessToken = await signAccessToken(ctx.project, issuer, {
      customerId: row.session.customerId,
      sessionId: row.sessionId,
    });
    return { accessToken, refreshToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
  });
  if (!pair) throw new AppError('unauthorized', INVALID_REFRESH);
  return pair;
}

async function endSession(tx: Tx, sessionId: string, reason: SessionEnd): Promise<void> {
  await tx.customerSession.updateMany({
    where: { id: sessionId, revokedAt: null },
    data: { revokedAt: new Date(), revokedReason: reason },
  });
}

/** Logout: ends the session of the refresh token, whatever state the token is in; nothing for an unknown one. */
export async function logout(ctx: Ctx, token: string): Promise<void> {
  requireStoreDomain(ctx);
  await writeTx(ctx, {}, async (tx) => {
    const row = await findRefreshToken(tx, ctx, token);
    if (row) await endSession(tx, row.sessionId, 'logout');
  });
}

const MISSING_TOKEN =
  'Missing access token. Send Authorization: Bearer <access token> and the publishable key in X-API-Key.';
const INVALID_TOKEN = 'Invalid or expired access token. Get a new one with POST /v1/auth/token.';
const ENDED = 'This session has ended. Sign in again.';

/** The tables whether a session is live is read from (each carries the table_changed trigger). */
const SESSION_TABLES = ['customer_sessions', 'customers'] as const;

/** Whose the session is, when it has not ended and its customer is not deleted; null otherwise (one primary-key read). */
async function readLiveSession(db: Database, sessionId: string): Promise<LiveSession | null> {
  const session = await db.customerSession.findUnique({
    where: { id: sessionId },
    select: { projectId: true, customerId: true, revokedAt: true, customer: { select: { deletedAt: true } } },
  });
  if (!session || session.revokedAt || session.customer.deletedAt) return null;
  return { projectId: session.projectId, customerId: session.customerId };
}

/**
 * The customer and session an access token stands for: signed by `project` (for `issuer` when given), unexpired,
 * and of a session that has not ended and a customer not deleted. 401 otherwise. With `caches`, whether the
 * session is live comes from the process cache, which any write to sessions or customers makes stale on commit
 * (this process's own writes at once, other processes' when their notification arrives, as for revoked API
 * keys), so an ended session is refused by the next request; without the change feed every request reads it.
 * With `caches`, a token already verified by this process is not verified again until it expires.
 */
export async function authenticateAccessToken(
  db: Database,
  project: Project,
  issuer: string | undefined,
  token: string | undefined,
  caches?: ProcessCaches,
): Promise<AccessClaims> {
  if (!token) throw new AppError('unauthorized', MISSING_TOKEN);
  const verify = () => verifiedAccessToken(project, issuer, token);
  // The signature proves the same thing until the token expires: the scope holds everything else it depends on.
  const claims = caches
    ? await caches.accessTokens.get(project.id, `${project.signingSecret}|${issuer ?? ''}`, token, verify)
    : ((await verify())?.value ?? null);
  if (!claims) throw new AppError('unauthorized', INVALID_TOKEN);
  const read = () => readLiveSession(db, claims.sessionId);
  const session = caches
    ? await caches.liveSessions.get(project.id, claims.sessionId, SESSION_TABLES, read)
    : await read();
  if (!session || session.projectId !== project.id || session.customerId !== claims.customerId)
    throw new AppError('unauthorized', ENDED);
  return claims;
}
