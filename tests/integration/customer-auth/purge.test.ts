import { describe, expect, test } from '@jest/globals';
import { purgeCustomerAuthJob } from '../../../src/modules/customer-auth/purge-customer-auth.job.js';
import { jobs } from '../../../src/jobs/registry.js';
import { jwtPayload, registerCustomer, storefront } from '../../factories/customer-auth.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ project: { domain: 'purge.example.com' } });
const { app } = store;

const past = (ms: number) => new Date(Date.now() - ms);
const HOUR = 3600 * 1000;

describe('purge-customer-auth job', () => {
  test('is registered with an hourly schedule', () => {
    expect(jobs['purge-customer-auth']).toBe(purgeCustomerAuthJob);
    expect(purgeCustomerAuthJob.schedule).toMatch(/^\d+ \* \* \* \*$/);
  });

  test('removes ended and expired sessions, expired refresh tokens, used or expired reset tokens and idle lockout counts; keeps the rest', async () => {
    const shop = storefront(app, store.keys.publishable_test.token);
    const db = app.deps.db;
    const sid = (session: { access_token: string }) => jwtPayload(session.access_token).sid as string;
    const live = await registerCustomer(shop, { email: 'live@example.com' });
    const rotated = (await shop.POST('/v1/auth/token', { body: { refresh_token: live.refresh_token } })).data!.data;
    const loggedOut = await registerCustomer(shop, { email: 'out@example.com' });
    await shop.POST('/v1/auth/logout', { body: { refresh_token: loggedOut.refresh_token } });
    const lapsed = await registerCustomer(shop, { email: 'lapsed@example.com' });
    await db.customerSession.update({ where: { id: sid(lapsed) }, data: { expiresAt: past(1000) } });
    await db.refreshToken.updateMany({ where: { sessionId: sid(lapsed) }, data: { expiresAt: past(1000) } });

    for (const email of ['live@example.com', 'live@example.com', 'out@example.com']) {
      // Each request past the previous one's cooldown, so the second for live@ writes a link too.
      await db.passwordResetToken.updateMany({
        where: { createdAt: { gt: past(HOUR) } },
        data: { createdAt: past(HOUR) },
      });
      await shop.POST('/v1/auth/forgot-password', { body: { email } });
    }
    const [usedReset, liveReset, expiredReset] = await db.passwordResetToken.findMany({
      orderBy: { createdAt: 'asc' },
    });
    await db.passwordResetToken.update({ where: { id: usedReset.id }, data: { usedAt: new Date() } });
    await db.passwordResetToken.update({ where: { id: expiredReset.id }, data: { expiresAt: past(1000) } });

    const throttle = (email: string, lastFailureAt: Date, lockedUntil: Date | null) =>
      db.loginThrottle.create({
        data: { projectId: store.project.id, email, failures: 3, lastFailureAt, lockedUntil },
      });
    await throttle('idle@example.com', past(25 * HOUR), null);
    await throttle('recent@example.com', past(HOUR), null);
    await throttle('locked@example.com', past(25 * HOUR), new Date(Date.now() + HOUR));

    await purgeCustomerAuthJob.handle(app.deps, { v: 1 });

    const sessions = await db.customerSession.findMany({ where: { projectId: store.project.id } });
    expect(sessions.map((s) => s.id)).toEqual([sid(live)]);
    // The used token of the live session stays, so presenting it again is still caught as reuse.
    expect(await db.refreshToken.count({ where: { sessionId: sid(live) } })).toBe(2);
    expect((await db.passwordResetToken.findMany()).map((t) => t.id)).toEqual([liveReset.id]);
    expect((await db.loginThrottle.findMany({ orderBy: { email: 'asc' } })).map((t) => t.email)).toEqual([
      'locked@example.com',
      'recent@example.com',
    ]);
    expect((await shop.POST('/v1/auth/token', { body: { refresh_token: live.refresh_token } })).response.status).toBe(
      401,
    );
    expect(
      (await shop.POST('/v1/auth/token', { body: { refresh_token: rotated.refresh_token } })).response.status,
    ).toBe(401);
  });
});
