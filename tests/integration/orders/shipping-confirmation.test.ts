import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { jobs } from '../../../src/jobs/registry.js';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { startSmtpServer, type TestSmtpServer } from '../../setup/smtp.js';
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

const outbox = async (to: string) =>
  (
    await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: store.project.id }, query: { to } },
    })
  ).data!.data;
const sendJobs = async () =>
  app.deps.db.$queryRawUnsafe<Array<{ data: { v: 1; emailId: string } }>>(
    `SELECT data FROM pgboss.job WHERE name = 'send-email' ORDER BY created_on`,
  );

/** An order of two Trail Runner 2 (EU 42) for the e-mail address, optionally of a customer. */
async function orderFor(email: string, customerId?: string) {
  const product = await createProduct(api, {
    title: 'Trail Runner 2',
    variants: [{ title: 'EU 42', sku: null, price: 9900 }],
  });
  await api.PUT('/v1/inventory-levels', {
    body: { variant_id: product.variants[0].id, location_id: store.project.default_location_id, available: 5 },
  });
  const draft = await createDraftOrder(
    api,
    customerId
      ? { currency: 'EUR', customer_id: customerId, customer_email: undefined }
      : { currency: 'EUR', customer_email: email },
  );
  await addItems(api, draft.id, [{ variant_id: product.variants[0].id, quantity: 2 }]);
  return (await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id))).data!.data;
}

const ship = (orderId: string, notify_customer: boolean) =>
  api.POST('/v1/orders/{id}/fulfillments', {
    ...byId(orderId),
    body: {
      location_id: store.project.default_location_id,
      line_items: [{ line_item_index: 0, quantity: 1 }],
      tracking_company: 'DHL',
      tracking_number: '00340434161234567890',
      tracking_url: 'https://www.dhl.de/track?piececode=00340434161234567890',
      notify_customer,
    },
  });

describe('shipping confirmation', () => {
  test('notify_customer writes the shipping confirmation to the outbox and enqueues its SMTP delivery, which reaches the server', async () => {
    const order = await orderFor('ship.me@example.com');
    const before = (await sendJobs()).length;
    const fulfilment = (await ship(order.id, true)).data!.data;
    const [email] = await outbox('ship.me@example.com');
    expect(email).toMatchObject({
      to: ['ship.me@example.com'],
      subject: `Your order #${order.order_number} from Acme Outdoor has shipped`,
      template: 'shipping_confirmation',
      locale: 'en',
      data: {
        order_id: order.id,
        order_number: order.order_number,
        fulfillment_id: fulfilment.id,
        tracking_company: 'DHL',
        tracking_number: '00340434161234567890',
        tracking_url: 'https://www.dhl.de/track?piececode=00340434161234567890',
      },
    });
    expect(email.text).toContain('1 x Trail Runner 2 - EU 42');
    expect(email.text).toContain('Tracking number: 00340434161234567890');
    expect(email.html).toContain('href="https://www.dhl.de/track?piececode=00340434161234567890"');

    const queued = (await sendJobs()).slice(before);
    expect(queued.map((job) => job.data)).toEqual([{ v: 1, emailId: email.id }]);
    const already = smtp.received.length;
    await jobs['send-email'].handle(app.deps, queued[0].data);
    const mail = (await smtp.waitFor(already + 1))[already];
    expect(mail.envelope.to).toEqual(['ship.me@example.com']);
    expect(mail.parsed.subject).toBe(`Your order #${order.order_number} from Acme Outdoor has shipped`);
  });

  test("in the customer's language (German, French), as the payment request", async () => {
    const german = await createCustomer(api, { email: 'kunde@example.de', locale: 'de-DE' });
    const order = await orderFor('kunde@example.de', german.id);
    await ship(order.id, true);
    const [email] = await outbox('kunde@example.de');
    expect(email.locale).toBe('de');
    expect(email.subject).toBe(`Ihre Bestellung #${order.order_number} bei Acme Outdoor wurde versandt`);
    expect(email.text).toContain('Sendungsnummer: 00340434161234567890');

    const french = await createCustomer(api, { email: 'client@example.fr', locale: 'fr' });
    const other = await orderFor('client@example.fr', french.id);
    await ship(other.id, true);
    const [mail] = await outbox('client@example.fr');
    expect(mail.subject).toBe(`Votre commande n° ${other.order_number} chez Acme Outdoor a été expédiée`);
  });

  test('without notify_customer no e-mail is written and nothing is enqueued', async () => {
    const order = await orderFor('quiet@example.com');
    const before = (await sendJobs()).length;
    expect((await ship(order.id, false)).response.status).toBe(201);
    expect(await outbox('quiet@example.com')).toEqual([]);
    expect((await sendJobs()).length).toBe(before);
  });

  test('a tracking_url other than http(s) (javascript:, data:, ftp:) answers 400 naming tracking_url; nothing is written', async () => {
    const order = await orderFor('no.script@example.com');
    for (const url of [
      'javascript:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      'ftp://x.example/t',
    ]) {
      const answer = await api.POST('/v1/orders/{id}/fulfillments', {
        ...byId(order.id),
        body: {
          location_id: store.project.default_location_id,
          line_items: [{ line_item_index: 0, quantity: 1 }],
          tracking_url: url,
          notify_customer: true,
        },
      });
      expect([url, answer.response.status]).toEqual([url, 400]);
      expect(answer.error!.error).toMatchObject({ code: 'invalid_request', field: 'tracking_url' });
    }
    expect(await outbox('no.script@example.com')).toEqual([]);
    const listed = await api.GET('/v1/orders/{id}/fulfillments', byId(order.id));
    expect(listed.data!.data).toEqual([]);
  });

  test('a fulfilment refused (400) writes no e-mail', async () => {
    const order = await orderFor('refused@example.com');
    await api.POST('/v1/orders/{id}/cancel', { ...byId(order.id), body: { reason: 'customer' } });
    expect((await ship(order.id, true)).response.status).toBe(400);
    expect(await outbox('refused@example.com')).toEqual([]);
  });
});
