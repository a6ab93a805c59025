import type { Database } from '../../db/client.js';
import { FAILURE_WINDOW_HOURS } from './lockout.js';

/**
 * Removes what customer auth no longer needs, in every project: ended and expired sessions (with their
 * refresh tokens), expired refresh tokens, used or expired reset tokens, and lockout counts idle for
 * longer than the failure window with no lock running. Used refresh tokens of live sessions stay until
 * they expire, so presenting one again is still recognised as reuse. Returns the rows removed per kind.
 */
export async function purgeCustomerAuth(
  db: Database,
): Promise<Record<'sessions' | 'refreshTokens' | 'resetTokens' | 'throttles', number>> {
  const now = new Date();
  const idleSince = new Date(now.getTime() - FAILURE_WINDOW_HOURS * 3600 * 1000);
  const [sessions, refreshTokens, resetTokens, throttles] = await db.$transaction([
    db.customerSession.deleteMany({ where: { OR: [{ revokedAt: { not: null } }, { expiresAt: { lte: now } }] } }),
    db.refreshToken.deleteMany({ where: { expiresAt: { lte: now } } }),
    db.passwordResetToken.deleteMany({ where: { OR: [{ usedAt: { not: null } }, { expiresAt: { lte: now } }] } }),
    db.loginThrottle.deleteMany({
      where: { lastFailureAt: { lt: idleSince }, OR: [{ lockedUntil: null }, { lockedUntil: { lte: now } }] },
    }),
  ]);
  return {
    sessions: sessions.count,
    refreshTokens: refreshTokens.count,
    resetTokens: resetTokens.count,
    throttles: throttles.count,
  };
}
