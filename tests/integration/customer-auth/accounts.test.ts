import { beforeAll, describe, expect, jest, test } from '@jest/globals';
import pg from 'pg';
import { signAccessToken } from '../../../src/modules/customer-auth/access-token.js';
import { hashPassword } from '../../../src/modules/customer-auth/passwords.js';
import type { CommerceClient } from '@commerce-api/sdk';
import {
  buildRegistration,
  GOOD_PASSWORD,
  jwtPayload,
  registerCustomer,
  signedIn,
  storefront,
} from '../../factories/customer-auth.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';
import { sessionUrlOf } from '../../setup/test-app.js';
import { eventually, lockWaits } from '../../setup/wait.js';

const store = useStore({ project: { domain: 'shop.example.com', domain_verified: true } });
const { app } = store;
let shop: CommerceClient;
beforeAll(async () => {
  shop = storefront(app, store.keys.publishable_test.token);
});

const me = (accessToken: string) => signedIn(app, store.keys.publishable_test.token, accessToken);
const TIMERS: Array<
  | 'hrtime'
  | 'nextTick'
  | 'performance'
  | 'queueMicrotask'
  | 'setImmediate'
  | 'clearImmediate'
  | 'setInterval'
  | 'clearInterval'
  | 'setTimeout'
  | 'clearTimeout'
> = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
];

describe('registerCustomer', () => {
  test('creates the customer, signs it in (201 token response with the customer) and records customer.created by the key', async () => {
    const session = await registerCustomer(shop, {
      email: 'Ana.Lima@Example.com',
      first_name: 'Ana',
      last_name: 'Lima',
      locale: 'de-DE',
      phone: '+49 30 555',
    });
    expect(session).toMatchObject({
      expires_in: 3600,
      customer: {
        email: 'Ana.Lima@Example.com',
        first_name: 'Ana',
        last_name: 'Lima',
        phone: '+49 30 555',
        locale: 'de-DE',
        email_verified: false,
      },
    });
    expect(session.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const admin = app.client(store.keys.secret_test.token);
    const events = await admin.GET('/v1/events', { params: { query: { resource_id: session.customer.id } } });
    expect(events.data!.data.map((e) => [e.type, e.actor_type, e.actor_id])).toEqual([
      ['customer.created', 'api_key', store.keys.publishable_test.id],
    ]);
    const stored = await app.deps.db.customer.findUniqueOrThrow({ where: { id: session.customer.id } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  test('an email taken in any case is 409 conflict on email, also for a customer the merchant created without a password', async () => {
    await registerCustomer(shop, { email: 'taken@example.com' });
    const again = await shop.POST('/v1/auth/register', { body: buildRegistration({ email: 'TAKEN@example.com' }) });
    expect(again.response.status).toBe(409);
    expect(again.error!.error).toMatchObject({ code: 'conflict', field: 'email' });
    await createCustomer(app.client(store.keys.secret_test.token), { email: 'merchant-made@example.com' });
    const merchantMade = await shop.POST('/v1/auth/register', {
      body: buildRegistration({ email: 'merchant-made@example.com' }),
    });
    expect(merchantMade.response.status).toBe(409);
  });

  test.each([
    ['alllowercase1', 'password needs an uppercase letter.'],
    ['ALLUPPERCASE1', 'password needs a lowercase letter.'],
    ['NoDigitsHere', 'password needs a digit.'],
    ['nouppernodigit', 'password needs an uppercase letter and a digit.'],
  ])('a password breaking the rule (%s) is 400 on password saying what is missing', async (password, message) => {
    const { response, error } = await shop.POST('/v1/auth/register', { body: buildRegistration({ password }) });
    expect(response.status).toBe(400);
    expect(error!.error).toEqual({ code: 'invalid_request', message, field: 'password' });
  });

  test('a password shorter than 8 or longer than 128 characters is 400 on password', async () => {
    for (const password of ['Ab1defg', `Ab1${'x'.repeat(126)}`]) {
      const { response, error } = await shop.POST('/v1/auth/register', { body: buildRegistration({ password }) });
      expect(response.status).toBe(400);
      expect(error!.error).toMatchObject({ code: 'invalid_request', field: 'password' });
    }
  });

  test('Idempotency-Key is ignored: the answer carries tokens that are never stored', async () => {
    const body = buildRegistration();
    const first = await shop.POST('/v1/auth/register', { body, headers: { 'Idempotency-Key': 'register-once' } });
    expect(first.response.status).toBe(201);
    expect(first.response.headers.get('Idempotent-Replayed')).toBeNull();
    expect(await app.deps.db.idempotencyKey.count({ where: { key: 'register-once' } })).toBe(0);
    const retry = await shop.POST('/v1/auth/register', { body, headers: { 'Idempotency-Key': 'register-once' } });
    expect(retry.response.status).toBe(409);
  });
});

describe('loginCustomer', () => {
  test('signs in with the email in any case; the access token carries the claims iss, aud, sub, pid, sid, jti, iat, exp', async () => {
    const registered = await registerCustomer(shop, { email: 'claims@example.com' });
    const { data, response } = await shop.POST('/v1/auth/login', {
      body: { email: 'CLAIMS@example.com', password: GOOD_PASSWORD },
    });
    expect(response.status).toBe(200);
    expect(data!.data.customer).toEqual(registered.customer);
    const claims = jwtPayload(data!.data.access_token);
    expect(Object.keys(claims).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'pid', 'sid', 'sub']);
    expect(claims).toMatchObject({
      iss: app.baseUrl,
      aud: 'storefront',
      sub: registered.customer.id,
      pid: store.project.id,
    });
    expect(claims.exp as number).toBe((claims.iat as number) + 3600);
    expect(claims.sid).toMatch(/^sess_[0-9a-z]{26}$/);
    expect(claims.sid).not.toBe(jwtPayload(registered.access_token).sid);
    const header = JSON.parse(Buffer.from(data!.data.access_token.split('.')[0], 'base64url').toString('utf8'));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
  });

  test('a wrong password, an unknown email and a customer without a password all answer the same 401', async () => {
    await registerCustomer(shop, { email: 'wrong-pass@example.com' });
    await createCustomer(app.client(store.keys.secret_test.token), { email: 'no-password@example.com' });
    for (const body of [
      { email: 'wrong-pass@example.com', password: 'Not-The-Password-1' },
      { email: 'nobody-here@example.com', password: GOOD_PASSWORD },
      { email: 'no-password@example.com', password: GOOD_PASSWORD },
    ]) {
      const { response, error } = await shop.POST('/v1/auth/login', { body });
      expect(response.status).toBe(401);
      expect(error).toEqual({ error: { code: 'unauthorized', message: 'Invalid email or password.' } });
    }
  });

  test('a login whose password was changed between its check and its session answers 401 and starts no session', async () => {
    const registered = await registerCustomer(shop, { email: 'race-reset@example.com' });
    const newHash = await hashPassword('Spring-Trail-2027');
    const other = new pg.Client({ connectionString: sessionUrlOf(app) });
    await other.connect();
    try {
      // A password reset under way holds the customer's row; the login checks the old password meanwhile.
      await other.query('BEGIN');
      await other.query('SELECT id FROM customers WHERE id = $1 FOR UPDATE', [registered.customer.id]);
      const login = shop.POST('/v1/auth/login', { body: { email: 'race-reset@example.com', password: GOOD_PASSWORD } });
      const waiting = await eventually(async () => (await lockWaits(other)) === 1, { timeoutMs: 10_000 });
      expect(waiting).toBe(true);
      // The reset commits: the new password, every session ended.
      await other.query('UPDATE customers SET password_hash = $2 WHERE id = $1', [registered.customer.id, newHash]);
      await other.query(
        `UPDATE customer_sessions SET revoked_at = now(), revoked_reason = 'password_reset' WHERE customer_id = $1 AND revoked_at IS NULL`,
        [registered.customer.id],
      );
      await other.query('COMMIT');
      const { response, error } = await login;
      expect(response.status).toBe(401);
      expect(error).toEqual({ error: { code: 'unauthorized', message: 'Invalid email or password.' } });
    } finally {
      await other.end();
    }
    const live = await app.deps.db.customerSession.count({
      where: { customerId: registered.customer.id, revokedAt: null },
    });
    expect(live).toBe(0);
    const { response } = await shop.POST('/v1/auth/login', {
      body: { email: 'race-reset@example.com', password: 'Spring-Trail-2027' },
    });
    expect(response.status).toBe(200);
  });

  test('a login whose hash another login rehashed meanwhile (same password) still signs in', async () => {
    const registered = await registerCustomer(shop, { email: 'race-rehash@example.com' });
    const rehashed = await hashPassword(GOOD_PASSWORD);
    const other = new pg.Client({ connectionString: sessionUrlOf(app) });
    await other.connect();
    try {
      // A concurrent login holds the customer's row and brings the hash up to today's parameters: a new hash of the
      // same password, not a change of it.
      await other.query('BEGIN');
      await other.query('SELECT id FROM customers WHERE id = $1 FOR UPDATE', [registered.customer.id]);
      const login = shop.POST('/v1/auth/login', {
        body: { email: 'race-rehash@example.com', password: GOOD_PASSWORD },
      });
      const waiting = await eventually(async () => (await lockWaits(other)) === 1, { timeoutMs: 10_000 });
      expect(waiting).toBe(true);
      await other.query('UPDATE customers SET password_hash = $2 WHERE id = $1', [registered.customer.id, rehashed]);
      await other.query('COMMIT');
      const { response } = await login;
      expect(response.status).toBe(200);
    } finally {
      await other.end();
    }
    const stored = await app.deps.db.customer.findUniqueOrThrow({ where: { id: registered.customer.id } });
    expect(stored.passwordHash).toBe(rehashed); // the other login's hash stays
  });

  test('a deleted customer cannot sign in', async () => {
    const session = await registerCustomer(shop, { email: 'deleted@example.com' });
    await app
      .client(store.keys.secret_test.token)
      .DELETE('/v1/customers/{id}', { params: { path: { id: session.customer.id } } });
    const { response } = await shop.POST('/v1/auth/login', {
      body: { email: 'deleted@example.com', password: GOOD_PASSWORD },
    });
    expect(response.status).toBe(401);
    expect((await me(session.access_token).GET('/v1/me')).response.status).toBe(401);
  });
});

describe('getCurrentCustomer', () => {
  test('answers the signed-in customer for its access token with the publishable key', async () => {
    const session = await registerCustomer(shop);
    const { data, response } = await me(session.access_token).GET('/v1/me');
    expect(response.status).toBe(200);
    expect(data!.data).toEqual(session.customer);
  });

  test('without a token, with a malformed, tampered or foreign token, or without the key: 401', async () => {
    const session = await registerCustomer(shop);
    const url = `${app.baseUrl}/v1/me`;
    const key = store.keys.publishable_test.token;
    const [head, payload, signature] = session.access_token.split('.');
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...jwtPayload(session.access_token), sub: 'cus_01jd5p0a2c4e6g8j0l2n4q6s8u' })).toString('base64url')}.${signature}`;
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    const cases: Array<[Record<string, string>, string]> = [
      [
        { 'X-API-Key': key },
        'Missing access token. Send Authorization: Bearer <access token> and the publishable key in X-API-Key.',
      ],
      [
        { 'X-API-Key': key, Authorization: 'Bearer not.a.jwt' },
        'Invalid or expired access token. Get a new one with POST /v1/auth/token.',
      ],
      [
        { 'X-API-Key': key, Authorization: `Bearer ${tampered}` },
        'Invalid or expired access token. Get a new one with POST /v1/auth/token.',
      ],
      [
        { 'X-API-Key': key, Authorization: `Bearer ${unsigned}` },
        'Invalid or expired access token. Get a new one with POST /v1/auth/token.',
      ],
      [
        { 'X-API-Key': key, Authorization: `Token ${session.access_token}` },
        'Malformed Authorization header. Send Authorization: Bearer <access token>.',
      ],
      [
        { Authorization: `Bearer ${session.access_token}` },
        'Missing API key. Send your publishable key in the X-API-Key header.',
      ],
    ];
    for (const [headers, message] of cases) {
      const response = await fetch(url, { headers });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: { code: 'unauthorized', message } });
    }
  });

  test("the token's project must be the key's project: a token of another project is 401", async () => {
    const other = await createProject(app, { domain: 'other.example.com' });
    const otherSession = await registerCustomer(storefront(app, other.keys.publishable_test.token));
    expect((await me(otherSession.access_token).GET('/v1/me')).response.status).toBe(401);
    expect(
      (await signedIn(app, other.keys.publishable_test.token, otherSession.access_token).GET('/v1/me')).response.status,
    ).toBe(200);
  });

  test('an access token is refused once its hour is over', async () => {
    const session = await registerCustomer(shop);
    const project = await app.deps.db.project.findUniqueOrThrow({ where: { id: store.project.id } });
    const claims = { customerId: session.customer.id, sessionId: jwtPayload(session.access_token).sid as string };
    // Signed 61 minutes ago: only the clock is faked, not the timers the app and the database client use.
    jest.useFakeTimers({ now: Date.now() - 61 * 60 * 1000, doNotFake: TIMERS });
    const expired = await signAccessToken(project, app.baseUrl, claims);
    jest.useRealTimers();
    const fresh = await signAccessToken(project, app.baseUrl, claims);
    expect((await me(fresh).GET('/v1/me')).response.status).toBe(200);
    const { response, error } = await me(expired).GET('/v1/me');
    expect(response.status).toBe(401);
    expect(error!.error.message).toBe('Invalid or expired access token. Get a new one with POST /v1/auth/token.');
  });
});

describe('updateCurrentCustomer', () => {
  test('changes first_name, last_name, phone and locale and records customer.updated with the customer as actor', async () => {
    const session = await registerCustomer(shop, { phone: '+33 1 23 45 67 89' });
    const { data, response } = await me(session.access_token).PATCH('/v1/me', {
      body: { first_name: 'Janet', phone: null, locale: 'fr-FR' },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      first_name: 'Janet',
      phone: null,
      locale: 'fr-FR',
      email: session.customer.email,
    });
    const events = await app.client(store.keys.secret_test.token).GET('/v1/events', {
      params: { query: { resource_id: session.customer.id, type: 'customer.updated' } },
    });
    expect(events.data!.data).toHaveLength(1);
    expect(events.data!.data[0]).toMatchObject({ actor_type: 'customer', actor_id: session.customer.id });
    expect(Object.keys(events.data!.data[0].metadata.changes!).sort()).toEqual(['first_name', 'locale', 'phone']);
  });

  test('the email cannot be changed here, and an empty body is 400', async () => {
    const session = await registerCustomer(shop);
    const api = me(session.access_token);
    const email = await api.PATCH('/v1/me', { body: { email: 'new@example.com' } as never });
    expect(email.response.status).toBe(400);
    expect(email.error!.error).toMatchObject({ field: 'email' });
    expect((await api.PATCH('/v1/me', { body: {} })).response.status).toBe(400);
  });
});

describe('changeCurrentCustomerPassword', () => {
  test('with the right current password: 200 tokens of a new session; every earlier session is ended; the new password signs in', async () => {
    const first = await registerCustomer(shop, { email: 'changer@example.com' });
    const second = (
      await shop.POST('/v1/auth/login', { body: { email: 'changer@example.com', password: GOOD_PASSWORD } })
    ).data!.data;
    const { data, response } = await me(first.access_token).POST('/v1/me/password', {
      body: { current_password: GOOD_PASSWORD, new_password: 'Spring-Trail-2027' },
    });
    expect(response.status).toBe(200);
    expect(Object.keys(data!.data).sort()).toEqual(['access_token', 'expires_in', 'refresh_token']);
    for (const old of [first, second]) {
      expect((await me(old.access_token).GET('/v1/me')).response.status).toBe(401);
      expect((await shop.POST('/v1/auth/token', { body: { refresh_token: old.refresh_token } })).response.status).toBe(
        401,
      );
    }
    expect((await me(data!.data.access_token).GET('/v1/me')).response.status).toBe(200);
    expect(
      (await shop.POST('/v1/auth/login', { body: { email: 'changer@example.com', password: GOOD_PASSWORD } })).response
        .status,
    ).toBe(401);
    expect(
      (await shop.POST('/v1/auth/login', { body: { email: 'changer@example.com', password: 'Spring-Trail-2027' } }))
        .response.status,
    ).toBe(200);
  });

  test('a wrong current password is 400 on current_password; a weak new one is 400 on new_password; nothing changes', async () => {
    const session = await registerCustomer(shop);
    const api = me(session.access_token);
    const wrong = await api.POST('/v1/me/password', {
      body: { current_password: 'Not-It-2026', new_password: 'Spring-Trail-2027' },
    });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error!.error).toEqual({
      code: 'invalid_request',
      message: 'The current password is not correct.',
      field: 'current_password',
    });
    const weak = await api.POST('/v1/me/password', {
      body: { current_password: GOOD_PASSWORD, new_password: 'spring-trail' },
    });
    expect(weak.response.status).toBe(400);
    expect(weak.error!.error).toEqual({
      code: 'invalid_request',
      message: 'new_password needs an uppercase letter and a digit.',
      field: 'new_password',
    });
    expect((await api.GET('/v1/me')).response.status).toBe(200);
  });
});

describe('the store domain rule (customer auth needs a domain on the project)', () => {
  test('every customer-auth operation of a project without a domain answers 400 with the exact message', async () => {
    const bare = await createProject(app, { domain: null, domain_verified: false });
    const api = storefront(app, bare.keys.publishable_test.token);
    const expected = {
      error: { code: 'invalid_request', message: 'Store domain must be configured to use customer auth.' },
    };
    const answers = [
      await api.POST('/v1/auth/register', { body: buildRegistration() }),
      await api.POST('/v1/auth/login', { body: { email: 'a@example.com', password: GOOD_PASSWORD } }),
      await api.POST('/v1/auth/token', { body: { refresh_token: 'EXY8nKFxNEEKHTaTBIbS_GDJAbg_sRCd4xplxAh21iM' } }),
      await api.POST('/v1/auth/logout', { body: { refresh_token: 'EXY8nKFxNEEKHTaTBIbS_GDJAbg_sRCd4xplxAh21iM' } }),
      await api.POST('/v1/auth/forgot-password', { body: { email: 'a@example.com' } }),
      await api.POST('/v1/auth/reset-password', {
        body: { token: 'mKvPlQpLaFC8pc_Kk_UeIfcx9GMXOwMILbLFcCIAj5M', password: GOOD_PASSWORD },
      }),
    ];
    for (const { response, error } of answers) {
      expect(response.status).toBe(400);
      expect(error).toEqual(expected);
    }
    expect(await app.deps.db.customer.count({ where: { projectId: bare.project.id } })).toBe(0);
  });

  test('the domain rule answers before the body is validated', async () => {
    const bare = await createProject(app, { domain: null });
    const { response, error } = await storefront(app, bare.keys.publishable_test.token).POST('/v1/auth/login', {
      body: {} as never,
    });
    expect(response.status).toBe(400);
    expect(error).toEqual({
      error: { code: 'invalid_request', message: 'Store domain must be configured to use customer auth.' },
    });
  });

  test('/v1/me answers 400 too once the domain is removed', async () => {
    const project = await createProject(app, { domain: 'soon-gone.example.com' });
    const session = await registerCustomer(storefront(app, project.keys.publishable_test.token));
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.project.id } },
      body: { domain: null },
    });
    const api = signedIn(app, project.keys.publishable_test.token, session.access_token);
    expect(
      (await signedIn(app, project.keys.publishable_test.token, 'not-a-token').GET('/v1/me')).error!.error.message,
    ).toBe('Store domain must be configured to use customer auth.');
    const expected = {
      error: { code: 'invalid_request', message: 'Store domain must be configured to use customer auth.' },
    };
    for (const { response, error } of [
      await api.GET('/v1/me'),
      await api.PATCH('/v1/me', { body: { first_name: 'X' } }),
      await api.POST('/v1/me/password', {
        body: { current_password: GOOD_PASSWORD, new_password: 'Spring-Trail-2027' },
      }),
    ]) {
      expect(response.status).toBe(400);
      expect(error).toEqual(expected);
    }
  });
});

describe('keys on customer-auth operations', () => {
  test('a live publishable key needs a verified domain (403 domain_not_verified); a missing key is 401', async () => {
    const unverified = await createProject(app, { domain: 'unverified.example.com', domain_verified: false });
    const live = await storefront(app, unverified.keys.publishable_live.token).POST('/v1/auth/login', {
      body: { email: 'a@example.com', password: GOOD_PASSWORD },
    });
    expect(live.response.status).toBe(403);
    expect(live.error!.error.code).toBe('domain_not_verified');
    const anonymous = await storefront(app, '').POST('/v1/auth/login', {
      body: { email: 'a@example.com', password: GOOD_PASSWORD },
    });
    expect(anonymous.response.status).toBe(401);
  });
});
