import type { Database } from '../../db/client.js';
import { AppError } from '../../shared/errors.js';
import { FAILURE_WINDOW_HOURS, lockSecondsAfter } from './lockout.js';

/**
 * Counts a password attempt for (project, email) before the password is checked, or answers 429
 * rate_limited with Retry-After while the email is locked. Counting first, in one transaction on the
 * row, means parallel guesses (from any process) cannot slip past a lock: the attempt that reaches a
 * threshold locks at once; if its password turns out right, `passwordAccepted` lifts the lock again.
 * Database time decides, so processes with skewed clocks agree.
 */
export async function countPasswordAttempt(db: Database, projectId: string, email: string): Promise<void> {
  const retryAfter = await db.$transaction(async (tx) => {
    const counted = await tx.$queryRaw<Array<{ failures: number }>>`
      INSERT INTO login_throttles AS t (project_id, email, failures, last_failure_at)
      VALUES (${projectId}, ${email}, 1, now())
      ON CONFLICT (project_id, email) DO UPDATE SET
        failures = CASE WHEN t.last_failure_at < now() - make_interval(hours => ${FAILURE_WINDOW_HOURS}::int) THEN 1 ELSE t.failures + 1 END,
        last_failure_at = now()
      WHERE t.locked_until IS NULL OR t.locked_until <= now()
      RETURNING failures`;
    if (counted.length === 0) {
      const [lock] = await tx.$queryRaw<Array<{ seconds: number }>>`
        SELECT GREATEST(1, ceil(extract(epoch FROM locked_until - now())))::int AS seconds
        FROM login_throttles WHERE project_id = ${projectId} AND email = ${email}`;
      return lock?.seconds ?? 1;
    }
    const seconds = lockSecondsAfter(counted[0].failures);
    if (seconds > 0) {
      await tx.$executeRaw`
        UPDATE login_throttles SET locked_until = now() + make_interval(secs => ${seconds}::int)
        WHERE project_id = ${projectId} AND email = ${email}`;
    }
    return 0;
  });
  if (retryAfter > 0) {
    throw new AppError('rate_limited', `Too many failed sign-in attempts. Try again in ${retryAfter} seconds.`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

/** A right password: the email's count and any lock are gone (a successful login resets the count). */
export async function passwordAccepted(db: Database, projectId: string, email: string): Promise<void> {
  await db.loginThrottle.deleteMany({ where: { projectId, email } });
}
