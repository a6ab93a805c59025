import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { GOOD_PASSWORD, registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useSecondApp, useStore } from '../../setup/store.js';

// Two app instances on one database stand for two server processes: the count and the lock are shared.
const store = useStore({ project: { domain: 'lockout.example.com' } });
const a = store.app;
const b = useSecondApp(a);
let shops: [CommerceClient, CommerceClient];
beforeAll(() => {
  shops = [storefront(a, store.keys.publishable_test.token), storefront(b, store.keys.publishable_test.token)];
});

const WRONG = 'Wrong-Password-1';

/** A login through process a (even attempts) or b (odd), alternating as a load balancer would. */
async function attempt(n: number, email: string, password = WRONG) {
  const { response, error } = await shops[n % 2].POST('/v1/auth/login', { body: { email, password } });
  return { status: response.status, retryAfter: response.headers.get('Retry-After'), error };
}

/** Ends the running lock of an email, as if its time had passed. */
const expireLock = (email: string) =>
  a.deps.db.loginThrottle.updateMany({
    where: { projectId: store.project.id, email },
    data: { lockedUntil: new Date(Date.now() - 1000) },
  });

async function statuses(from: number, to: number, email: string): Promise<number[]> {
  const seen: number[] = [];
  for (let n = from; n <= to; n++) seen.push((await attempt(n, email)).status);
  return seen;
}

describe('login lockout across two processes', () => {
  test('six wrong passwords in a row: the fifth answers 401, the sixth 429 rate_limited with Retry-After about 60', async () => {
    await registerCustomer(shops[0], { email: 'six@example.com' });
    expect(await statuses(1, 4, 'six@example.com')).toEqual([401, 401, 401, 401]);
    const fifth = await attempt(5, 'six@example.com');
    expect(fifth.status).toBe(401);
    expect(fifth.error!.error.message).toBe('Invalid email or password.');
    const sixth = await attempt(6, 'six@example.com');
    expect(sixth.status).toBe(429);
    expect(sixth.error!.error.code).toBe('rate_limited');
    expect(Number(sixth.retryAfter)).toBeGreaterThanOrEqual(55);
    expect(Number(sixth.retryAfter)).toBeLessThanOrEqual(60);
    expect(sixth.error!.error.message).toBe(
      `Too many failed sign-in attempts. Try again in ${sixth.retryAfter} seconds.`,
    );
  });

  test('while locked even the right password is refused with 429; after the lock a right password signs in and resets the count', async () => {
    await registerCustomer(shops[0], { email: 'right@example.com' });
    await statuses(1, 5, 'right@example.com');
    expect((await attempt(6, 'right@example.com', GOOD_PASSWORD)).status).toBe(429);
    await expireLock('right@example.com');
    expect((await attempt(7, 'right@example.com', GOOD_PASSWORD)).status).toBe(200);
    // The count starts again: four more failures lock nothing, the fifth does.
    expect(await statuses(8, 12, 'right@example.com')).toEqual([401, 401, 401, 401, 401]);
    expect((await attempt(13, 'right@example.com')).status).toBe(429);
  });

  test('thresholds: 10 failures lock for 5 minutes, 20 and every one after for 15 minutes; failures in between lock nothing (unknown email)', async () => {
    const email = 'ghost@example.com';
    const lockFor = async (n: number) => {
      const locked = await attempt(n + 1, email);
      expect(locked.status).toBe(429);
      await expireLock(email);
      return Number(locked.retryAfter);
    };
    expect(await statuses(1, 5, email)).toEqual(Array(5).fill(401));
    expect(await lockFor(5)).toBeGreaterThan(55);
    expect(await statuses(6, 10, email)).toEqual(Array(5).fill(401));
    const five = await lockFor(10);
    expect(five).toBeGreaterThan(290);
    expect(five).toBeLessThanOrEqual(300);
    expect(await statuses(11, 20, email)).toEqual(Array(10).fill(401));
    const fifteen = await lockFor(20);
    expect(fifteen).toBeGreaterThan(890);
    expect(fifteen).toBeLessThanOrEqual(900);
    expect((await attempt(21, email)).status).toBe(401);
    expect(await lockFor(21)).toBeGreaterThan(890);
  });

  test('an unknown email is locked exactly like a known one, so the lock does not reveal which accounts exist', async () => {
    await registerCustomer(shops[0], { email: 'known@example.com' });
    const known = await statuses(1, 6, 'known@example.com');
    const unknown = await statuses(1, 6, 'unknown@example.com');
    expect(unknown).toEqual(known);
    expect(known).toEqual([401, 401, 401, 401, 401, 429]);
  });

  test('ten parallel wrong guesses through both processes: exactly five are checked (401), the rest find the lock (429)', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, n) => attempt(n, 'burst@example.com')));
    const counts = results.reduce<Record<number, number>>(
      (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
      {},
    );
    expect(counts).toEqual({ 401: 5, 429: 5 });
  });

  test('the count starts again after 24 hours without a failure', async () => {
    const email = 'slow-typist@example.com';
    await statuses(1, 4, email);
    await a.deps.db.loginThrottle.updateMany({
      where: { projectId: store.project.id, email },
      data: { lastFailureAt: new Date(Date.now() - 25 * 3600 * 1000) },
    });
    expect(await statuses(5, 8, email)).toEqual([401, 401, 401, 401]);
    const row = await a.deps.db.loginThrottle.findUniqueOrThrow({
      where: { projectId_email: { projectId: store.project.id, email } },
    });
    expect(row.failures).toBe(4);
  });

  test('counts are per project', async () => {
    const other = await createProject(a, { domain: 'other-lockout.example.com' });
    await statuses(1, 5, 'shared@example.com');
    const elsewhere = await storefront(b, other.keys.publishable_test.token).POST('/v1/auth/login', {
      body: { email: 'shared@example.com', password: WRONG },
    });
    expect(elsewhere.response.status).toBe(401);
  });

  test("a wrong current password on POST /v1/me/password counts as a failed login of the customer's email", async () => {
    const session = await registerCustomer(shops[0], { email: 'changer@example.com' });
    const me = [
      signedIn(a, store.keys.publishable_test.token, session.access_token),
      signedIn(b, store.keys.publishable_test.token, session.access_token),
    ];
    const change = (n: number) =>
      me[n % 2].POST('/v1/me/password', { body: { current_password: WRONG, new_password: 'Spring-Trail-2027' } });
    for (let n = 1; n <= 5; n++) expect((await change(n)).response.status).toBe(400);
    const locked = await change(6);
    expect(locked.response.status).toBe(429);
    expect(Number(locked.response.headers.get('Retry-After'))).toBeGreaterThan(55);
    expect((await attempt(7, 'changer@example.com', GOOD_PASSWORD)).status).toBe(429);
  });
});
