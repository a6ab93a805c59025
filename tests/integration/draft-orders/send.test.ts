import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { jobs } from '../../../src/jobs/registry.js';
import type { CommerceClient } from '@commerce-api/sdk';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { startSmtpServer, type TestSmtpServer } from '../../setup/smtp.js';
import { startTestApp } from '../../setup/test-app.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
const store = useStore({
  project: { name: 'Acme Outdoor', domain: 'shop.acme-outdoor.com', domain_verified: true, currency: 'EUR' },
  app: () => ({ config: { smtpUrl: smtp.url } }),
});
const { app, api } = store;
afterAll(() => smtp.close());
const outbox = async (projectId: string, to: string) =>
  (await app.platform.GET('/platform/v1/projects/{id}/outbox', { params: { path: { id: projectId }, query: { to } } }))
    .data!.data;
/** The pay link of a draft: the storefront's pay page with the draft's signed pay token (createCheckoutFromDraft). */
const payLink = (draftId: string) =>
  expect.stringMatching(
    new RegExp(`^https://shop\\.acme-outdoor\\.com/checkout/${draftId}\\?token=${draftId}\\.[A-Za-z0-9_-]{43}$`),
  );

const sendJobs = async () =>
  app.deps.db.$queryRawUnsafe<Array<{ data: { v: 1; emailId: string } }>>(
    `SELECT data FROM pgboss.job WHERE name = 'send-email' ORDER BY created_on`,
  );

async function readyDraft(client: CommerceClient, overrides: Parameters<typeof createDraftOrder>[1] = {}) {
  const draft = await createDraftOrder(client, {
    currency: 'EUR',
    customer_email: 'jane.doe@example.com',
    ...overrides,
  });
  await addItems(client, draft.id, [{ title: 'Guided tour', unit_price: 12000, quantity: 2 }]);
  return draft;
}

describe('sendDraftOrder', () => {
  test('writes the payment request to the outbox: default subject, items, totals, pay link; the draft is sent', async () => {
    const draft = await readyDraft(api, { customer_email: 'first@example.com' });
    const { data, response } = await api.POST('/v1/draft-orders/{id}/send', byId(draft.id));
    expect(response.status).toBe(200);
    expect(data!.data.status).toBe('sent');
    const [email] = await outbox(store.project.id, 'first@example.com');
    expect(email).toMatchObject({
      to: ['first@example.com'],
      cc: [],
      bcc: [],
      subject: `Draft order #${draft.draft_number} from Acme Outdoor`,
      template: 'draft_order_invoice',
      locale: 'en',
      data: {
        draft_order_id: draft.id,
        draft_number: draft.draft_number,
        total: 24000,
        currency: 'EUR',
        pay_url: payLink(draft.id),
      },
    });
    expect(email.text).toContain('2 x Guided tour: €240.00');
    expect(email.text).toContain('Total: €240.00');
    expect(email.text).toContain(email.data.pay_url);
    expect(email.html).toContain(`href="${email.data.pay_url as string}"`);
  });

  test('records draft_order.updated with the status change; sending again from sent re-sends and records again', async () => {
    const draft = await readyDraft(api, { customer_email: 'twice@example.com' });
    await api.POST('/v1/draft-orders/{id}/send', byId(draft.id));
    const again = await api.POST('/v1/draft-orders/{id}/send', byId(draft.id));
    expect(again.data!.data.status).toBe('sent');
    expect(await outbox(store.project.id, 'twice@example.com')).toHaveLength(2);
    const events = (
      await api.GET('/v1/events', {
        params: { query: { resource_id: draft.id, type: 'draft_order.updated', order: 'asc' } },
      })
    ).data!.data;
    const sends = events.filter((e) => e.summary.includes('payment request sent'));
    expect(sends).toHaveLength(2);
    expect(sends[0].metadata.changes).toEqual({ status: { from: 'open', to: 'sent' } });
  });

  test('subject, message, cc and bcc are used; cc and bcc are kept apart', async () => {
    const draft = await readyDraft(api, { customer_email: 'custom@example.com' });
    await api.POST('/v1/draft-orders/{id}/send', {
      ...byId(draft.id),
      body: {
        subject: 'Your quote',
        message: 'As discussed on the phone.',
        cc: ['Purchasing@Example.com'],
        bcc: ['sales@acme-outdoor.com'],
      },
    });
    const [email] = await outbox(store.project.id, 'custom@example.com');
    expect(email).toMatchObject({
      subject: 'Your quote',
      cc: ['purchasing@example.com'],
      bcc: ['sales@acme-outdoor.com'],
    });
    expect(email.text).toContain('As discussed on the phone.');
  });

  test("the language follows the customer's locale, else the project's", async () => {
    const german = await createCustomer(api, { email: 'kunde@example.de', locale: 'de-DE' });
    const draft = await readyDraft(api, { customer_id: german.id, customer_email: undefined });
    await api.POST('/v1/draft-orders/{id}/send', byId(draft.id));
    const [de] = await outbox(store.project.id, 'kunde@example.de');
    expect(de).toMatchObject({ locale: 'de', subject: `Bestellentwurf #${draft.draft_number} von Acme Outdoor` });
    expect(de.text).toContain('Jetzt bezahlen');

    const french = await createProject(app, { name: 'Boutique', locale: 'fr', currency: 'EUR' });
    const client = app.client(french.keys.secret_test.token);
    const other = await readyDraft(client, { customer_email: 'client@example.fr' });
    await client.POST('/v1/draft-orders/{id}/send', byId(other.id));
    const [fr] = await outbox(french.project.id, 'client@example.fr');
    expect(fr).toMatchObject({ locale: 'fr', subject: `Projet de commande n° ${other.draft_number} de Boutique` });
  });

  test('without a verified domain there is no pay link', async () => {
    const unverified = await createProject(app, {
      domain: 'pending.example.com',
      domain_verified: false,
      currency: 'EUR',
    });
    const client = app.client(unverified.keys.secret_test.token);
    const draft = await readyDraft(client, { customer_email: 'nolink@example.com' });
    await client.POST('/v1/draft-orders/{id}/send', byId(draft.id));
    const [email] = await outbox(unverified.project.id, 'nolink@example.com');
    expect(email.data.pay_url).toBeNull();
    expect(email.text).not.toContain('https://');
    expect(email.html).not.toContain('<a ');
  });

  test('without customer email or without items: 400 invalid_request and nothing is written', async () => {
    const noEmail = await createDraftOrder(api, { currency: 'EUR', customer_email: null });
    await addItems(api, noEmail.id, [{ title: 'x', unit_price: 1, quantity: 1 }]);
    const a = await api.POST('/v1/draft-orders/{id}/send', byId(noEmail.id));
    expect(a.error!.error).toMatchObject({ code: 'invalid_request', field: 'customer_email' });
    const noItems = await createDraftOrder(api, { currency: 'EUR', customer_email: 'empty@example.com' });
    const b = await api.POST('/v1/draft-orders/{id}/send', byId(noItems.id));
    expect(b.error!.error).toMatchObject({ code: 'invalid_request', field: 'items' });
    expect(await outbox(store.project.id, 'empty@example.com')).toEqual([]);
    expect((await api.GET('/v1/draft-orders/{id}', byId(noItems.id))).data!.data.status).toBe('open');
  });

  test.each([
    ['subject', { subject: 's'.repeat(201) }],
    ['subject', { subject: '' }],
    ['message', { message: 'm'.repeat(5001) }],
    ['cc', { cc: Array.from({ length: 6 }, (_, i) => `cc${i}@example.com`) }],
    ['bcc', { bcc: Array.from({ length: 6 }, (_, i) => `bcc${i}@example.com`) }],
    ['cc[0]', { cc: ['not-an-email'] }],
    ['bcc[1]', { bcc: ['a@example.com', 'nope'] }],
    ['to', { to: ['x@example.com'] }],
  ])('an invalid %s answers 400 naming it', async (field, body) => {
    const draft = await readyDraft(api);
    const { error, response } = await api.POST('/v1/draft-orders/{id}/send', {
      ...byId(draft.id),
      body: body as never,
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field });
  });

  test('accepts the limits exactly: subject 200, message 5000, five cc and five bcc', async () => {
    const draft = await readyDraft(api);
    const { response } = await api.POST('/v1/draft-orders/{id}/send', {
      ...byId(draft.id),
      body: {
        subject: 's'.repeat(200),
        message: 'm'.repeat(5000),
        cc: Array.from({ length: 5 }, (_, i) => `cc${i}@example.com`),
        bcc: Array.from({ length: 5 }, (_, i) => `bcc${i}@example.com`),
      },
    });
    expect(response.status).toBe(200);
  });

  test('a body that is not JSON answers 400', async () => {
    const draft = await readyDraft(api);
    const response = await fetch(`${app.baseUrl}/v1/draft-orders/${draft.id}/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.keys.secret_test.token}`, 'content-type': 'application/json' },
      body: '{"cc": [',
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
  });
});

describe('payment request over SMTP (SMTP_URL set)', () => {
  test('send enqueues the send-email job with the outbox e-mail; its handler delivers it through nodemailer to a real SMTP server', async () => {
    const draft = await readyDraft(api, { customer_email: 'smtp.buyer@example.com' });
    const before = (await sendJobs()).length;
    await api.POST('/v1/draft-orders/{id}/send', {
      ...byId(draft.id),
      body: { cc: ['accounts@example.com'], bcc: ['audit@acme-outdoor.com'] },
    });
    const queued = (await sendJobs()).slice(before);
    expect(queued).toHaveLength(1);
    const [email] = await outbox(store.project.id, 'smtp.buyer@example.com');
    expect(queued[0].data).toEqual({ v: 1, emailId: email.id });

    const already = smtp.received.length;
    await jobs['send-email'].handle(app.deps, queued[0].data);
    const mail = (await smtp.waitFor(already + 1))[already];
    expect(mail.envelope.to.sort()).toEqual([
      'accounts@example.com',
      'audit@acme-outdoor.com',
      'smtp.buyer@example.com',
    ]);
    expect(mail.envelope.from).toBe('noreply@shop.acme-outdoor.com');
    expect(mail.parsed.to).toMatchObject({ text: 'smtp.buyer@example.com' });
    expect(mail.parsed.cc).toMatchObject({ text: 'accounts@example.com' });
    expect(mail.parsed.bcc).toBeUndefined();
    expect(mail.raw).not.toMatch(/^bcc:/im);
    expect(mail.raw).not.toContain('audit@acme-outdoor.com');
    expect(mail.parsed.subject).toBe(`Draft order #${draft.draft_number} from Acme Outdoor`);
    expect(mail.parsed.text).toContain(email.data.pay_url);
    expect(mail.parsed.html).toContain(`href="${email.data.pay_url as string}"`);
  });

  test('a send that fails (400) enqueues nothing', async () => {
    const before = (await sendJobs()).length;
    const empty = await createDraftOrder(api, { currency: 'EUR' });
    expect((await api.POST('/v1/draft-orders/{id}/send', byId(empty.id))).response.status).toBe(400);
    expect((await sendJobs()).length).toBe(before);
  });
});

describe('payment request without SMTP_URL', () => {
  test('the outbox is the only delivery: no job is enqueued', async () => {
    const plain = await startTestApp();
    try {
      const own = await createProject(plain, { currency: 'EUR' });
      const client = plain.client(own.keys.secret_test.token);
      const draft = await readyDraft(client, { customer_email: 'outbox.only@example.com' });
      expect((await client.POST('/v1/draft-orders/{id}/send', byId(draft.id))).response.status).toBe(200);
      const jobsThere = await plain.deps.db.$queryRawUnsafe<unknown[]>(
        `SELECT 1 FROM pgboss.job WHERE name = 'send-email'`,
      );
      expect(jobsThere).toEqual([]);
      expect(await plain.deps.db.outboxEmail.count({ where: { to: { has: 'outbox.only@example.com' } } })).toBe(1);
    } finally {
      await plain.close();
    }
  });
});
