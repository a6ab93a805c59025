import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { sendEmailJob } from '../../../src/modules/platform/send-email.job.js';
import { RESET_COOLDOWN_SECONDS } from '../../../src/modules/customer-auth/password-reset.service.js';
import type { CommerceClient } from '@commerce-api/sdk';
import {
  GOOD_PASSWORD,
  jwtPayload,
  registerCustomer,
  signedIn,
  storefront,
} from '../../factories/customer-auth.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { startSmtpServer, type TestSmtpServer } from '../../setup/smtp.js';
import { useStore } from '../../setup/store.js';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
const store = useStore({
  project: { name: 'Acme Outdoor', domain: 'shop.acme-outdoor.example' },
  app: () => ({ config: { smtpUrl: smtp.url } }),
});
const { app } = store;
let shop: CommerceClient;
beforeAll(() => {
  shop = storefront(app, store.keys.publishable_test.token);
});
afterAll(() => smtp.close());

const NEW_PASSWORD = 'Spring-Trail-2027';
const GENERIC = {
  data: { message: 'If an account exists for this email, we have sent a link to reset its password.' },
};
const INVALID_TOKEN = {
  code: 'invalid_request',
  message: 'This password reset link is invalid, expired or already used. Request a new one.',
  field: 'token',
};

const forgot = (email: string) => shop.POST('/v1/auth/forgot-password', { body: { email } });
const reset = (token: string, password = NEW_PASSWORD) =>
  shop.POST('/v1/auth/reset-password', { body: { token, password } });
const outboxTo = async (email: string) =>
  (
    await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: store.project.id }, query: { to: email } },
    })
  ).data!.data;

/** Moves the reset links already sent to `email` out of the cooldown, as if they were sent a minute ago. */
async function afterCooldown(email: string): Promise<void> {
  await app.deps.db.passwordResetToken.updateMany({
    where: { projectId: store.project.id, email: email.toLowerCase() },
    data: { createdAt: new Date(Date.now() - (RESET_COOLDOWN_SECONDS + 1) * 1000) },
  });
}

/** Requests a reset for `email` and returns the token of the e-mail it wrote. */
async function resetTokenFor(email: string): Promise<string> {
  expect((await forgot(email)).response.status).toBe(200);
  const [latest] = await outboxTo(email);
  return latest.data.token as string;
}

describe('requestPasswordReset', () => {
  test('answers the same generic message whether or not the account exists; only an existing one gets an e-mail', async () => {
    await registerCustomer(shop, { email: 'exists@example.com' });
    const known = await forgot('EXISTS@example.com');
    const unknown = await forgot('nobody@example.com');
    expect([known.response.status, unknown.response.status]).toEqual([200, 200]);
    expect(known.data).toEqual(GENERIC);
    expect(unknown.data).toEqual(GENERIC);
    expect(await outboxTo('nobody@example.com')).toHaveLength(0);
    const [email] = await outboxTo('exists@example.com');
    expect(email).toMatchObject({
      template: 'password_reset',
      locale: 'en',
      subject: 'Reset your Acme Outdoor password',
    });
    expect(email.data.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(email.data.reset_url).toBe(
      `https://shop.acme-outdoor.example/account/reset-password?token=${String(email.data.token)}`,
    );
    expect(email.text).toContain(email.data.reset_url);
    expect(email.html).toContain(`href="${String(email.data.reset_url)}"`);
    const stored = await app.deps.db.passwordResetToken.findFirstOrThrow({
      where: { customerId: email.data.customer_id as string },
    });
    expect(stored.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.tokenHash).not.toBe(email.data.token);
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(24 * 3600 * 1000);
  });

  test('a new reset link voids the older outstanding ones at once', async () => {
    await registerCustomer(shop, { email: 'newest@example.com' });
    const older = await resetTokenFor('newest@example.com');
    await afterCooldown('newest@example.com');
    const newer = await resetTokenFor('newest@example.com');
    expect((await reset(older)).error!.error).toEqual(INVALID_TOKEN);
    expect((await reset(newer)).response.status).toBe(200);
  });

  test('a second request for one account within the cooldown sends no e-mail and answers exactly as the first', async () => {
    expect(RESET_COOLDOWN_SECONDS).toBe(60);
    await registerCustomer(shop, { email: 'flooded@example.com' });
    const first = await forgot('flooded@example.com');
    const [sent] = await outboxTo('flooded@example.com');
    const again = await Promise.all([forgot('Flooded@example.com'), forgot('FLOODED@example.com')]);
    const unknown = await forgot('never-registered@example.com');
    for (const answer of [first, ...again, unknown]) {
      expect(answer.response.status).toBe(200);
      expect(answer.data).toEqual(GENERIC);
    }
    expect(await outboxTo('flooded@example.com')).toHaveLength(1);
    expect(await app.deps.db.passwordResetToken.count({ where: { email: 'flooded@example.com' } })).toBe(1);
    // The link already sent keeps working through the cooldown; past it, a request sends a new one.
    await afterCooldown('flooded@example.com');
    expect((await forgot('flooded@example.com')).data).toEqual(GENERIC);
    const [newest] = await outboxTo('flooded@example.com');
    expect(newest.data.token).not.toBe(sent.data.token);
    expect(await outboxTo('flooded@example.com')).toHaveLength(2);
  });

  test('the cooldown is per account and address: another customer, or the same one at a new address, gets its e-mail', async () => {
    const moving = await registerCustomer(shop, { email: 'cool-a@example.com' });
    await registerCustomer(shop, { email: 'cool-b@example.com' });
    await forgot('cool-a@example.com');
    await forgot('cool-b@example.com');
    await app.client(store.keys.secret_test.token).PATCH('/v1/customers/{id}', {
      params: { path: { id: moving.customer.id } },
      body: { email: 'cool-c@example.com' },
    });
    await forgot('cool-c@example.com');
    for (const email of ['cool-a@example.com', 'cool-b@example.com', 'cool-c@example.com']) {
      expect(await outboxTo(email)).toHaveLength(1);
    }
  });

  test("is written in the customer's locale, else the project's; languages without a template get English", async () => {
    await registerCustomer(shop, { email: 'de@example.com', locale: 'de-AT' });
    await registerCustomer(shop, { email: 'fr@example.com', locale: 'fr' });
    await registerCustomer(shop, { email: 'ja@example.com', locale: 'ja-JP' });
    const french = await createProject(app, { name: 'Boutique', domain: 'boutique.example.fr', locale: 'fr-FR' });
    const frenchShop = storefront(app, french.keys.publishable_test.token);
    await registerCustomer(frenchShop, { email: 'default@example.com' });
    for (const email of ['de@example.com', 'fr@example.com', 'ja@example.com']) await forgot(email);
    await frenchShop.POST('/v1/auth/forgot-password', { body: { email: 'default@example.com' } });
    const subjects = {
      de: (await outboxTo('de@example.com'))[0],
      fr: (await outboxTo('fr@example.com'))[0],
      ja: (await outboxTo('ja@example.com'))[0],
    };
    expect(subjects.de).toMatchObject({ locale: 'de', subject: 'Passwort für Acme Outdoor zurücksetzen' });
    expect(subjects.fr).toMatchObject({ locale: 'fr', subject: 'Réinitialisez votre mot de passe Acme Outdoor' });
    expect(subjects.ja).toMatchObject({ locale: 'en', subject: 'Reset your Acme Outdoor password' });
    const projectDefault = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: french.project.id }, query: { to: 'default@example.com' } },
    });
    expect(projectDefault.data!.data[0]).toMatchObject({
      locale: 'fr',
      subject: 'Réinitialisez votre mot de passe Boutique',
    });
  });

  test('with SMTP_URL the e-mail is also enqueued and its job delivers it over SMTP', async () => {
    await registerCustomer(shop, { email: 'smtp@example.com', first_name: 'Sam' });
    await forgot('smtp@example.com');
    const [email] = await outboxTo('smtp@example.com');
    const [job] = await app.deps.db.$queryRaw<Array<{ data: { emailId: string } }>>`
      SELECT data FROM pgboss.job WHERE name = 'send-email' AND data->>'emailId' = ${email.id}`;
    expect(job.data).toEqual({ v: 1, emailId: email.id });
    const before = smtp.received.length;
    await sendEmailJob.handle(app.deps, job.data as { v: 1; emailId: string });
    const delivered = (await smtp.waitFor(before + 1))[before];
    expect(delivered.envelope).toEqual({ from: 'noreply@shop.acme-outdoor.example', to: ['smtp@example.com'] });
    expect(delivered.parsed.subject).toBe('Reset your Acme Outdoor password');
    expect(delivered.parsed.text).toContain('Hello Sam,');
    expect(delivered.parsed.text).toContain(email.data.reset_url);
  });
});

describe('resetPassword', () => {
  test('sets the password, is single use, verifies the email and ends every session', async () => {
    const session = await registerCustomer(shop, { email: 'resetter@example.com' });
    const rotated = (await shop.POST('/v1/auth/token', { body: { refresh_token: session.refresh_token } })).data!.data;
    const token = await resetTokenFor('resetter@example.com');
    const { data, response } = await reset(token);
    expect(response.status).toBe(200);
    expect(data).toEqual({ data: { message: 'Your password has been reset. Sign in with your new password.' } });

    expect(
      (await shop.POST('/v1/auth/token', { body: { refresh_token: rotated.refresh_token } })).response.status,
    ).toBe(401);
    expect(
      (await signedIn(app, store.keys.publishable_test.token, rotated.access_token).GET('/v1/me')).response.status,
    ).toBe(401);
    expect(
      (await shop.POST('/v1/auth/login', { body: { email: 'resetter@example.com', password: GOOD_PASSWORD } })).response
        .status,
    ).toBe(401);
    const login = await shop.POST('/v1/auth/login', {
      body: { email: 'resetter@example.com', password: NEW_PASSWORD },
    });
    expect(login.response.status).toBe(200);
    expect(login.data!.data.customer.email_verified).toBe(true);

    const again = await reset(token, 'Autumn-Trail-2028');
    expect(again.response.status).toBe(400);
    expect(again.error!.error).toEqual(INVALID_TOKEN);
  });

  test('a weak password is 400 on password and does not use the token up', async () => {
    await registerCustomer(shop, { email: 'weak@example.com' });
    const token = await resetTokenFor('weak@example.com');
    const weak = await reset(token, 'weakpassword');
    expect(weak.response.status).toBe(400);
    expect(weak.error!.error).toEqual({
      code: 'invalid_request',
      message: 'password needs an uppercase letter and a digit.',
      field: 'password',
    });
    expect((await reset(token)).response.status).toBe(200);
  });

  test('an unknown or expired token is 400 on token', async () => {
    expect((await reset('mKvPlQpLaFC8pc_Kk_UeIfcx9GMXOwMILbLFcCIAj5M')).error!.error).toEqual(INVALID_TOKEN);
    const customer = await registerCustomer(shop, { email: 'expired@example.com' });
    const token = await resetTokenFor('expired@example.com');
    await app.deps.db.passwordResetToken.updateMany({
      where: { customerId: customer.customer.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await reset(token)).error!.error).toEqual(INVALID_TOKEN);
  });

  test('a successful reset uses up every other reset token of the customer', async () => {
    await registerCustomer(shop, { email: 'twice@example.com' });
    const first = await resetTokenFor('twice@example.com');
    await afterCooldown('twice@example.com');
    const second = await resetTokenFor('twice@example.com');
    expect(first).not.toBe(second);
    expect((await reset(second)).response.status).toBe(200);
    expect((await reset(first, 'Autumn-Trail-2028')).error!.error).toEqual(INVALID_TOKEN);
  });

  test('a password change voids the reset links sent before it: a link read from the mailbox cannot undo it', async () => {
    const session = await registerCustomer(shop, { email: 'changer@example.com' });
    const token = await resetTokenFor('changer@example.com');
    const changed = await signedIn(app, store.keys.publishable_test.token, session.access_token).POST(
      '/v1/me/password',
      { body: { current_password: GOOD_PASSWORD, new_password: NEW_PASSWORD } },
    );
    expect(changed.response.status).toBe(200);
    expect((await reset(token, 'Autumn-Trail-2028')).error!.error).toEqual(INVALID_TOKEN);
    expect(
      (await shop.POST('/v1/auth/login', { body: { email: 'changer@example.com', password: NEW_PASSWORD } })).response
        .status,
    ).toBe(200);
    // A link asked for after the change works as usual.
    await afterCooldown('changer@example.com');
    expect((await reset(await resetTokenFor('changer@example.com'), 'Autumn-Trail-2028')).response.status).toBe(200);
  });

  test('a reset and a password change of one account sent together: one after the other, never a 500', async () => {
    // The change locks the customer, then voids the links; the reset must take the same order, or the two
    // deadlock and PostgreSQL aborts one (a 500).
    for (let round = 0; round < 8; round++) {
      const email = `racer${round}@example.com`;
      const session = await registerCustomer(shop, { email });
      const token = await resetTokenFor(email);
      const [changed, resetAnswer] = await Promise.all([
        signedIn(app, store.keys.publishable_test.token, session.access_token).POST('/v1/me/password', {
          body: { current_password: GOOD_PASSWORD, new_password: NEW_PASSWORD },
        }),
        reset(token, 'Autumn-Trail-2028'),
      ]);
      expect(changed.response.status).toBe(200);
      // Either the reset came first (and the change still succeeded with the old password it checked), or the
      // change voided the link first.
      expect([200, 400]).toContain(resetAnswer.response.status);
      if (resetAnswer.response.status === 400) expect(resetAnswer.error!.error).toEqual(INVALID_TOKEN);
    }
  });

  test('a customer the merchant created sets its first password through forgot and reset', async () => {
    await createCustomer(app.client(store.keys.secret_test.token), { email: 'imported@example.com' });
    expect(
      (await shop.POST('/v1/auth/login', { body: { email: 'imported@example.com', password: NEW_PASSWORD } })).response
        .status,
    ).toBe(401);
    expect((await reset(await resetTokenFor('imported@example.com'))).response.status).toBe(200);
    const login = await shop.POST('/v1/auth/login', {
      body: { email: 'imported@example.com', password: NEW_PASSWORD },
    });
    expect(login.response.status).toBe(200);
    expect(login.data!.data.customer.email_verified).toBe(true);
  });

  test("a link is void once the customer's email changed, and a new email is not verified", async () => {
    const session = await registerCustomer(shop, { email: 'moving@example.com' });
    const token = await resetTokenFor('moving@example.com');
    const admin = app.client(store.keys.secret_test.token);
    await admin.PATCH('/v1/customers/{id}', {
      params: { path: { id: session.customer.id } },
      body: { email: 'moved@example.com' },
    });
    expect((await reset(token)).error!.error).toEqual(INVALID_TOKEN);
    expect((await reset(await resetTokenFor('moved@example.com'))).response.status).toBe(200);
    await admin.PATCH('/v1/customers/{id}', {
      params: { path: { id: session.customer.id } },
      body: { email: 'moved-again@example.com' },
    });
    const login = await shop.POST('/v1/auth/login', {
      body: { email: 'moved-again@example.com', password: NEW_PASSWORD },
    });
    expect(login.data!.data.customer).toMatchObject({ email: 'moved-again@example.com', email_verified: false });
    expect(jwtPayload(login.data!.data.access_token).sub).toBe(session.customer.id);
  });
});
