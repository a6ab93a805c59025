import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import {
  GOOD_PASSWORD,
  jwtPayload,
  registerCustomer,
  signedIn,
  storefront,
  type AuthSession,
} from '../../factories/customer-auth.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ project: { domain: 'sessions.example.com' } });
const { app } = store;
let shop: CommerceClient;
beforeAll(async () => {
  shop = storefront(app, store.keys.publishable_test.token);
});

const refresh = (refreshToken: string) => shop.POST('/v1/auth/token', { body: { refresh_token: refreshToken } });
const meStatus = async (accessToken: string) =>
  (await signedIn(app, store.keys.publishable_test.token, accessToken).GET('/v1/me')).response.status;
const INVALID_REFRESH = {
  error: {
    code: 'unauthorized',
    message: 'Invalid refresh token. It is unknown, expired or used, or its session has ended. Sign in again.',
  },
};

async function rotate(token: string) {
  const { data, response } = await refresh(token);
  expect(response.status).toBe(200);
  return data!.data;
}

describe('refreshCustomerToken', () => {
  test('rotates within the session: new tokens with the same sid, no customer object; the presented token is used up', async () => {
    const session = await registerCustomer(shop);
    const next = await rotate(session.refresh_token);
    expect(Object.keys(next).sort()).toEqual(['access_token', 'expires_in', 'refresh_token']);
    expect(next.refresh_token).not.toBe(session.refresh_token);
    expect(jwtPayload(next.access_token)).toMatchObject({
      sid: jwtPayload(session.access_token).sid,
      sub: session.customer.id,
    });
    expect(await meStatus(next.access_token)).toBe(200);
    expect(await meStatus(session.access_token)).toBe(200); // an access token of a live session stays valid until it expires
  });

  test('a consumed token presented again is 401 and ends the whole session, even after later rotations', async () => {
    const session = await registerCustomer(shop);
    const second = await rotate(session.refresh_token);
    const third = await rotate(second.refresh_token);
    const reused = await refresh(session.refresh_token);
    expect(reused.response.status).toBe(401);
    expect(reused.error).toEqual(INVALID_REFRESH);
    expect((await refresh(third.refresh_token)).response.status).toBe(401);
    for (const token of [session.access_token, second.access_token, third.access_token])
      expect(await meStatus(token)).toBe(401);
    const row = await app.deps.db.customerSession.findUniqueOrThrow({
      where: { id: jwtPayload(session.access_token).sid as string },
    });
    expect(row.revokedReason).toBe('reuse');
  });

  test('the old token is refused and, presented again, ends the new one too (a replayed token after a rotation)', async () => {
    const session = await registerCustomer(shop);
    const next = await rotate(session.refresh_token);
    expect((await refresh(session.refresh_token)).response.status).toBe(401);
    expect((await refresh(next.refresh_token)).response.status).toBe(401);
    expect(await meStatus(next.access_token)).toBe(401);
  });

  test('reuse ends only that session: another sign-in of the same customer keeps working', async () => {
    const session = await registerCustomer(shop, { email: 'two-devices@example.com' });
    const other = (
      await shop.POST('/v1/auth/login', { body: { email: 'two-devices@example.com', password: GOOD_PASSWORD } })
    ).data!.data;
    await rotate(session.refresh_token);
    await refresh(session.refresh_token);
    expect(await meStatus(other.access_token)).toBe(200);
    expect((await refresh(other.refresh_token)).response.status).toBe(200);
  });

  test('two refreshes racing with one token: exactly one succeeds, and the loser ends the session as a reuse', async () => {
    const session = await registerCustomer(shop);
    const results = await Promise.all([refresh(session.refresh_token), refresh(session.refresh_token)]);
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 401]);
    const winner = results.find((r) => r.response.status === 200)!.data!.data;
    expect((await refresh(winner.refresh_token)).response.status).toBe(401);
  });

  test('unknown, malformed, expired and other-project tokens are 401; an expired one ends nothing', async () => {
    expect((await refresh('EXY8nKFxNEEKHTaTBIbS_GDJAbg_sRCd4xplxAh21iM')).error).toEqual(INVALID_REFRESH);
    expect((await refresh('x')).response.status).toBe(401);
    const session = await registerCustomer(shop);
    await app.deps.db.refreshToken.updateMany({
      where: { sessionId: jwtPayload(session.access_token).sid as string },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await refresh(session.refresh_token)).response.status).toBe(401);
    expect(await meStatus(session.access_token)).toBe(200);
    const other = await createProject(app, { domain: 'elsewhere.example.com' });
    const foreign = await registerCustomer(storefront(app, other.keys.publishable_test.token));
    expect((await refresh(foreign.refresh_token)).response.status).toBe(401);
    expect(
      (
        await storefront(app, other.keys.publishable_test.token).POST('/v1/auth/token', {
          body: { refresh_token: foreign.refresh_token },
        })
      ).response.status,
    ).toBe(200);
  });

  test('refresh tokens are stored only as SHA-256 hashes', async () => {
    const session: AuthSession = await registerCustomer(shop);
    const rows = await app.deps.db.refreshToken.findMany({
      where: { sessionId: jwtPayload(session.access_token).sid as string },
    });
    expect(rows).toHaveLength(1);
    expect(rows[0].tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(session.refresh_token);
  });
});

describe('logoutCustomer', () => {
  test('ends the session: its refresh token and its access tokens are refused; 204 again for the same, an unknown or a malformed token', async () => {
    const session = await registerCustomer(shop);
    const logout = (token: string) => shop.POST('/v1/auth/logout', { body: { refresh_token: token } });
    expect((await logout(session.refresh_token)).response.status).toBe(204);
    expect(await meStatus(session.access_token)).toBe(401);
    expect((await refresh(session.refresh_token)).response.status).toBe(401);
    expect((await logout(session.refresh_token)).response.status).toBe(204);
    expect((await logout('EXY8nKFxNEEKHTaTBIbS_GDJAbg_sRCd4xplxAh21iM')).response.status).toBe(204);
    expect((await logout('not-a-token')).response.status).toBe(204);
  });

  test('a used refresh token still logs its session out', async () => {
    const session = await registerCustomer(shop);
    const next = await rotate(session.refresh_token);
    expect(
      (await shop.POST('/v1/auth/logout', { body: { refresh_token: session.refresh_token } })).response.status,
    ).toBe(204);
    expect(await meStatus(next.access_token)).toBe(401);
  });

  test('a refresh_token is required (400)', async () => {
    const { response, error } = await shop.POST('/v1/auth/logout', { body: {} as never });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'refresh_token' });
  });
});
