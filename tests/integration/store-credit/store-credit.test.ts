import { describe, expect, test } from '@jest/globals';
import { createStorefrontClient, unwrap } from '@commerce-api/sdk';
import { jobs } from '../../../src/jobs/registry.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { balanceOf, issueCredit } from '../../factories/store-credit.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ project: { currency: 'EUR' } });
const { app, api } = store;

/** The customer's whole ledger, newest first, walked by its cursor. */
async function ledger(customerId: string) {
  const entries = [];
  let cursor: string | undefined;
  do {
    const page = await api.GET('/v1/customers/{id}/store-credit/transactions', {
      params: { path: { id: customerId }, query: { limit: 2, ...(cursor && { cursor }) } },
    });
    expect(page.response.status).toBe(200);
    entries.push(...page.data!.data);
    cursor = page.data!.pagination.cursor ?? undefined;
  } while (cursor);
  return entries;
}

const sum = (entries: Array<{ amount: number }>) => entries.reduce((total, entry) => total + entry.amount, 0);
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

describe('issueStoreCredit', () => {
  test('adds credit with its reason and expiry in the project currency, records store_credit.issued', async () => {
    const customer = await createCustomer(api);
    const expiresAt = new Date(Date.now() + 30 * 86_400_000);
    const entry = await issueCredit(api, customer.id, 5000, {
      reason: 'Goodwill for the late delivery',
      expires_at: expiresAt.toISOString(),
    });
    expect(entry).toMatchObject({
      customer_id: customer.id,
      type: 'issue',
      amount: 5000,
      balance_after: 5000,
      currency: 'EUR',
      reason: 'Goodwill for the late delivery',
      expires_at: expiresAt.toISOString(),
      order_id: null,
      checkout_id: null,
      refund_id: null,
    });
    const balance = await api.GET('/v1/customers/{id}/store-credit', byId(customer.id));
    expect(balance.data!.data).toEqual({
      customer_id: customer.id,
      currency: 'EUR',
      balance: 5000,
      next_expiry: { amount: 5000, expires_at: expiresAt.toISOString() },
    });
    const events = await api.GET('/v1/events', { params: { query: { resource_id: entry.id } } });
    expect(events.data!.data.map((event) => event.type)).toEqual(['store_credit.issued']);
  });

  test('a customer who never had credit reads balance 0 in the project currency', async () => {
    const customer = await createCustomer(api);
    const balance = await api.GET('/v1/customers/{id}/store-credit', byId(customer.id));
    expect(balance.data!.data).toEqual({ customer_id: customer.id, currency: 'EUR', balance: 0, next_expiry: null });
    expect((await api.GET('/v1/customers/{id}/store-credit/transactions', byId(customer.id))).data).toEqual({
      data: [],
      pagination: { cursor: null, has_more: false, total: 0 },
    });
  });

  test('expires_at in the past is 400 on expires_at and writes nothing', async () => {
    const customer = await createCustomer(api);
    const answer = await api.POST('/v1/customers/{id}/store-credit/credits', {
      ...byId(customer.id),
      body: { amount: 100, reason: 'Late', expires_at: inSeconds(-60) },
    });
    expect(answer.response.status).toBe(400);
    expect(answer.error!.error).toMatchObject({ code: 'invalid_request', field: 'expires_at' });
    expect(await app.deps.db.storeCreditTransaction.count({ where: { customerId: customer.id } })).toBe(0);
  });

  test('a deleted customer, or an unknown id, is 404', async () => {
    const customer = await createCustomer(api);
    await api.DELETE('/v1/customers/{id}', byId(customer.id));
    const answer = await api.POST('/v1/customers/{id}/store-credit/credits', {
      ...byId(customer.id),
      body: { amount: 100, reason: 'Late' },
    });
    expect(answer.response.status).toBe(404);
    expect(answer.error!.error.code).toBe('not_found');
  });
});

describe('adjustStoreCredit', () => {
  test('a negative adjustment takes the soonest-expiring credit first and records store_credit.used', async () => {
    const customer = await createCustomer(api);
    const late = inSeconds(90 * 86_400);
    const soon = inSeconds(10 * 86_400);
    await issueCredit(api, customer.id, 3000, { expires_at: late });
    await issueCredit(api, customer.id, 1000);
    await issueCredit(api, customer.id, 2000, { expires_at: soon });
    const answer = await api.POST('/v1/customers/{id}/store-credit/adjustments', {
      ...byId(customer.id),
      body: { amount: -2500, reason: 'Issued twice by mistake' },
    });
    expect(answer.response.status).toBe(201);
    expect(answer.data!.data).toMatchObject({ type: 'adjustment', amount: -2500, balance_after: 3500 });
    // 2000 expiring soon went first, then 500 of the 3000 expiring later; the 1000 without expiry is untouched.
    const balance = (await api.GET('/v1/customers/{id}/store-credit', byId(customer.id))).data!.data;
    expect(balance).toMatchObject({ balance: 3500, next_expiry: { amount: 2500, expires_at: late } });
    const events = await api.GET('/v1/events', { params: { query: { resource_id: answer.data!.data.id } } });
    expect(events.data!.data.map((event) => event.type)).toEqual(['store_credit.used']);
  });

  test('taking more than the balance is 400 on amount and writes nothing', async () => {
    const customer = await createCustomer(api);
    await issueCredit(api, customer.id, 3500);
    const answer = await api.POST('/v1/customers/{id}/store-credit/adjustments', {
      ...byId(customer.id),
      body: { amount: -5000, reason: 'Correction' },
    });
    expect(answer.response.status).toBe(400);
    expect(answer.error!.error).toEqual({
      code: 'invalid_request',
      message: 'The balance is 3500 (minor units of EUR): at most 3500 can be taken, not 5000.',
      field: 'amount',
    });
    expect(await balanceOf(api, customer.id)).toBe(3500);
    expect(await app.deps.db.storeCreditTransaction.count({ where: { customerId: customer.id } })).toBe(1);
  });

  test('amount 0 is refused by the contract (400 on amount)', async () => {
    const customer = await createCustomer(api);
    const answer = await store.call('POST', `/v1/customers/${customer.id}/store-credit/adjustments`, {
      amount: 0,
      reason: 'Nothing',
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { field: string } }).error.field).toBe('amount');
  });

  test('a positive adjustment adds credit that does not expire', async () => {
    const customer = await createCustomer(api);
    const answer = await api.POST('/v1/customers/{id}/store-credit/adjustments', {
      ...byId(customer.id),
      body: { amount: 700, reason: 'Correction' },
    });
    expect(answer.data!.data).toMatchObject({ type: 'adjustment', amount: 700, balance_after: 700, expires_at: null });
    expect(await balanceOf(api, customer.id)).toBe(700);
  });
});

describe('listStoreCreditTransactions', () => {
  test('newest first, paginated; the entries sum to the balance and each balance_after is the running sum', async () => {
    const customer = await createCustomer(api);
    await issueCredit(api, customer.id, 4000);
    await api.POST('/v1/customers/{id}/store-credit/adjustments', {
      ...byId(customer.id),
      body: { amount: -1500, reason: 'Correction' },
    });
    await issueCredit(api, customer.id, 250);
    const entries = await ledger(customer.id);
    expect(entries.map((entry) => [entry.type, entry.amount, entry.balance_after])).toEqual([
      ['issue', 250, 2750],
      ['adjustment', -1500, 2500],
      ['issue', 4000, 4000],
    ]);
    expect(sum(entries)).toBe(await balanceOf(api, customer.id));
  });

  test("a cursor of one customer's history does not continue another's", async () => {
    const first = await createCustomer(api);
    const second = await createCustomer(api);
    for (const customer of [first, second]) {
      await issueCredit(api, customer.id, 100);
      await issueCredit(api, customer.id, 200);
    }
    const page = await api.GET('/v1/customers/{id}/store-credit/transactions', {
      params: { path: { id: first.id }, query: { limit: 1 } },
    });
    const other = await api.GET('/v1/customers/{id}/store-credit/transactions', {
      params: { path: { id: second.id }, query: { cursor: page.data!.pagination.cursor! } },
    });
    expect(other.response.status).toBe(400);
    expect(other.error!.error.field).toBe('cursor');
  });
});

describe('getCurrentCustomerStoreCredit and listCurrentCustomerStoreCreditTransactions', () => {
  test('the signed-in customer reads their own balance and history, as the merchant does', async () => {
    const session = await registerCustomer(storefront(app, store.keys.publishable_test.token));
    const customerId = session.customer.id;
    await issueCredit(api, customerId, 1200, { reason: 'Welcome gift' });
    const me = signedIn(app, store.keys.publishable_test.token, session.access_token);
    const balance = await me.GET('/v1/me/store-credit');
    expect(balance.response.status).toBe(200);
    expect(balance.data!.data).toEqual((await api.GET('/v1/customers/{id}/store-credit', byId(customerId))).data!.data);
    const history = await me.GET('/v1/me/store-credit/transactions');
    expect(history.data!.data).toEqual(
      (await api.GET('/v1/customers/{id}/store-credit/transactions', byId(customerId))).data!.data,
    );
    expect(history.data!.data[0]).toMatchObject({ type: 'issue', amount: 1200, reason: 'Welcome gift' });
  });

  test("the SDK's storefront client reads them once signed in and walks the history with paginate", async () => {
    const shop = createStorefrontClient({ baseUrl: app.baseUrl, publishableKey: store.keys.publishable_test.token });
    const session = await unwrap(
      shop.POST('/v1/auth/register', {
        body: { email: 'sdk.shopper@example.com', password: 'Winter-Trail-2026', first_name: 'Sam', last_name: 'Shop' },
      }),
    ).then((answer) => answer.data);
    for (const amount of [100, 200, 300]) await issueCredit(api, session.customer.id, amount);
    shop.signIn(session.access_token);
    expect((await unwrap(shop.GET('/v1/me/store-credit'))).data.balance).toBe(600);
    const amounts = [];
    for await (const entry of shop.paginate('/v1/me/store-credit/transactions', { query: { limit: 2 } })) {
      amounts.push(entry.amount);
    }
    expect(amounts).toEqual([300, 200, 100]);
  });

  test('without an access token: 401', async () => {
    const answer = await storefront(app, store.keys.publishable_test.token).GET('/v1/me/store-credit');
    expect(answer.response.status).toBe(401);
  });
});

describe('the expire-store-credit job', () => {
  test('removes what is left of expired credit (expiry entry, store_credit.expired), once', async () => {
    const customer = await createCustomer(api);
    const expiresAt = inSeconds(1.5);
    const credit = await issueCredit(api, customer.id, 3000, { expires_at: expiresAt });
    await issueCredit(api, customer.id, 800);
    await api.POST('/v1/customers/{id}/store-credit/adjustments', {
      ...byId(customer.id),
      body: { amount: -1000, reason: 'Correction' },
    });
    // Nothing is due yet: the job changes nothing.
    await jobs['expire-store-credit'].handle(app.deps, { v: 1 });
    expect(await balanceOf(api, customer.id)).toBe(2800);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 100));
    await jobs['expire-store-credit'].handle(app.deps, { v: 1 });
    const [expiry] = await ledger(customer.id);
    expect(expiry).toMatchObject({ type: 'expiry', amount: -2000, balance_after: 800 });
    expect(await balanceOf(api, customer.id)).toBe(800);
    const events = await api.GET('/v1/events', { params: { query: { resource_id: expiry.id } } });
    expect(events.data!.data.map((event) => [event.type, event.actor_id])).toEqual([
      ['store_credit.expired', 'system:expire-store-credit'],
    ]);
    await jobs['expire-store-credit'].handle(app.deps, { v: 1 });
    expect(sum(await ledger(customer.id))).toBe(800);
    expect(credit.expires_at).toBe(expiresAt);
  });

  test('is registered on a schedule', () => {
    expect(jobs['expire-store-credit'].schedule).toBe('* * * * *');
  });
});
