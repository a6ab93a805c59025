import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { createCompany } from '../../factories/company.factory.js';
import { jwtPayload, registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { createGroup, type GroupResource } from '../../factories/customer-group.factory.js';
import { createPriceList, setPrices } from '../../factories/price-list.factory.js';
import { changeOf, TABLE_CHANGED } from '../../../src/shared/table-versions.js';
import { useSecondApp, useStore } from '../../setup/store.js';
import type { TestApp } from '../../setup/test-app.js';
import { withTableNotificationsHeld } from '../../setup/two-processes.js';

// Signed-in storefront reads take the customer's price keys and whether its session is live from the process
// caches; these tests prove that a change to either is seen by the next read, in this process at once and in
// another as soon as its change notification arrives.
const store = useStore({ project: { domain: 'cached-prices.example.com', domain_verified: true } });
const other = useSecondApp(store.app);
let product: ProductResource;
let group: GroupResource;
const BASE = 2500;
const WHOLESALE = 2200;
const VIP = 2000;
const B2B = 2100;

beforeAll(async () => {
  product = await createProduct(store.api, { variants: [{ title: 'Only', price: BASE }] });
  const variant = product.variants[0].id;
  for (const [slug, amount] of [
    ['wholesale', WHOLESALE],
    ['vip', VIP],
    ['b2b', B2B],
  ] as const) {
    const list = await createPriceList(store.api, { slug });
    await setPrices(store.api, list.id, [{ variant_id: variant, amount }]);
  }
  group = await createGroup(store.api, { active_price_key: 'vip' });
});

/** A newly registered shopper (no lists) with its clients on both processes. */
async function newShopper() {
  const session = await registerCustomer(storefront(store.app, store.keys.publishable_test.token));
  const on = (app: TestApp) => signedIn(app, store.keys.publishable_test.token, session.access_token);
  return { session, here: on(store.app), there: on(other) };
}

async function customerPrice(client: CommerceClient): Promise<number | undefined> {
  const { data, error } = await client.GET('/v1/products/{id}', { params: { path: { id: product.id } } });
  expect(error).toBeUndefined();
  return (data!.data as { customer_price?: number }).customer_price;
}

/** Resolves when process `app` has heard that `table` changed. */
function changeHeardBy(app: TestApp, table: string): Promise<void> {
  return new Promise((resolve) =>
    app.deps.authCache!.feed.on(TABLE_CHANGED, (name) => changeOf(name).table === table && resolve()),
  );
}

describe("customer_price with the customer's price keys cached", () => {
  test("a shopper added to (then removed from) a group on a list sees the group's price on the very next read", async () => {
    const shopper = await newShopper();
    expect(await customerPrice(shopper.here)).toBe(BASE);
    // Notifications held: only this process's own write can make the cached keys stale.
    await withTableNotificationsHeld(store.app, async () => {
      await store.api.POST('/v1/customer-groups/{id}/members', {
        params: { path: { id: group.id } },
        body: { customer_ids: [shopper.session.customer.id] },
      });
      expect(await customerPrice(shopper.here)).toBe(VIP);
      await store.api.DELETE('/v1/customer-groups/{id}/members/{customer_id}', {
        params: { path: { id: group.id, customer_id: shopper.session.customer.id } },
      });
      expect(await customerPrice(shopper.here)).toBe(BASE);
    });
  });

  test("a shopper's own price key set through another process is used once that process's change is heard", async () => {
    const shopper = await newShopper();
    expect(await customerPrice(shopper.here)).toBe(BASE);
    const heard = changeHeardBy(store.app, 'customers');
    const otherApi = other.client(store.keys.secret_test.token);
    const { response } = await otherApi.PATCH('/v1/customers/{id}', {
      params: { path: { id: shopper.session.customer.id } },
      body: { active_price_key: 'wholesale' },
    });
    expect(response.status).toBe(200);
    await heard;
    expect(await customerPrice(shopper.here)).toBe(WHOLESALE);
  });

  test("a company contact linked to the shopper, added through another process, brings the company's list", async () => {
    const shopper = await newShopper();
    expect(await customerPrice(shopper.here)).toBe(BASE);
    const otherApi = other.client(store.keys.secret_test.token);
    const company = await createCompany(otherApi, { active_price_key: 'b2b' });
    const heard = changeHeardBy(store.app, 'company_contacts');
    const { response } = await otherApi.POST('/v1/companies/{id}/contacts', {
      params: { path: { id: company.id } },
      body: { name: 'Buyer', customer_id: shopper.session.customer.id },
    });
    expect(response.status).toBe(201);
    await heard;
    expect(await customerPrice(shopper.here)).toBe(B2B);
  });

  test("a list's price changed through another process (then in this one) is charged on the next read", async () => {
    const shopper = await newShopper();
    await store.api.PATCH('/v1/customers/{id}', {
      params: { path: { id: shopper.session.customer.id } },
      body: { active_price_key: 'wholesale' },
    });
    expect(await customerPrice(shopper.here)).toBe(WHOLESALE);
    const lists = await store.api.GET('/v1/price-lists', { params: { query: { limit: 100 } } });
    const wholesale = lists.data!.data.find((list) => list.slug === 'wholesale')!;
    const variant = product.variants[0].id;
    const heard = changeHeardBy(store.app, 'price_list_prices');
    await setPrices(other.client(store.keys.secret_test.token), wholesale.id, [{ variant_id: variant, amount: 2150 }]);
    await heard;
    expect(await customerPrice(shopper.here)).toBe(2150);
    await withTableNotificationsHeld(store.app, async () => {
      await setPrices(store.api, wholesale.id, [{ variant_id: variant, amount: WHOLESALE }]);
      expect(await customerPrice(shopper.here)).toBe(WHOLESALE);
    });
  });

  test('a membership written in SQL, outside every service, is seen once its notification arrives', async () => {
    const shopper = await newShopper();
    expect(await customerPrice(shopper.here)).toBe(BASE);
    const heard = changeHeardBy(store.app, 'customer_group_members');
    await store.app.deps.db.$executeRaw`
      INSERT INTO customer_group_members (group_id, customer_id) VALUES (${group.id}, ${shopper.session.customer.id})`;
    await heard;
    expect(await customerPrice(shopper.here)).toBe(VIP);
  });
});

describe('customer_price in search answers, from cached variant prices', () => {
  test('a variant re-priced in SQL, outside every service, is priced anew once its notification arrives', async () => {
    const shopper = await newShopper();
    const searched = async () =>
      (await shopper.here.GET('/v1/search', { params: { query: { q: product.title } } })).data!.data.products.data.find(
        (hit) => hit.id === product.id,
      )!.customer_price;
    expect(await searched()).toBe(BASE);
    const heard = changeHeardBy(store.app, 'variants');
    await store.app.deps.db.$executeRaw`UPDATE variants SET sale_price = 1990 WHERE id = ${product.variants[0].id}`;
    await heard;
    expect(await searched()).toBe(1990);
    const restored = changeHeardBy(store.app, 'variants');
    await store.app.deps.db.$executeRaw`UPDATE variants SET sale_price = NULL WHERE id = ${product.variants[0].id}`;
    await restored;
    expect(await searched()).toBe(BASE);
  });
});

describe('customer_price with the resolved prices cached', () => {
  test("a list's starts_at and ends_at passing, with no write at all, change the price on the next read", async () => {
    const timed = await createProduct(store.api, { variants: [{ title: 'Timed', price: BASE }] });
    const list = await createPriceList(store.api, { slug: 'timed', starts_at: '2999-01-01T00:00:00Z' });
    await setPrices(store.api, list.id, [{ variant_id: timed.variants[0].id, amount: 1800 }]);
    const shopper = await newShopper();
    await store.api.PATCH('/v1/customers/{id}', {
      params: { path: { id: shopper.session.customer.id } },
      body: { active_price_key: 'timed' },
    });
    // The list's window set last (the last write), 1.5 s ahead: however long the setup above took on this machine.
    const startsAt = new Date(Date.now() + 1500);
    const endsAt = new Date(startsAt.getTime() + 1500);
    const windowSet = await store.api.PATCH('/v1/price-lists/{id}', {
      params: { path: { id: list.id } },
      body: { starts_at: startsAt.toISOString(), ends_at: endsAt.toISOString() },
    });
    expect(windowSet.response.status).toBe(200);
    const price = async () => {
      const { data } = await shopper.here.GET('/v1/products/{id}', { params: { path: { id: timed.id } } });
      return (data!.data as { customer_price?: number }).customer_price;
    };
    const until = (moment: Date) => new Promise((resolve) => setTimeout(resolve, moment.getTime() - Date.now() + 20));
    expect(await price()).toBe(BASE);
    expect(await price()).toBe(BASE); // answered from the cache
    await until(startsAt);
    expect(await price()).toBe(1800);
    expect(await price()).toBe(1800);
    await until(endsAt);
    expect(await price()).toBe(BASE);
  });
});

describe('customer tokens with live sessions cached', () => {
  const ENDED = { error: { code: 'unauthorized', message: 'This session has ended. Sign in again.' } };
  const readStatus = async (client: CommerceClient) => {
    const { error, response } = await client.GET('/v1/products/{id}', { params: { path: { id: product.id } } });
    return { status: response.status, error };
  };

  test("a logged-out session's token is refused by the very next request of the same process", async () => {
    const shopper = await newShopper();
    expect((await readStatus(shopper.here)).status).toBe(200);
    const shop = storefront(store.app, store.keys.publishable_test.token);
    // Notifications held: the logout's own commit must make the cached session stale.
    await withTableNotificationsHeld(store.app, async () => {
      const logout = await shop.POST('/v1/auth/logout', { body: { refresh_token: shopper.session.refresh_token } });
      expect(logout.response.status).toBe(204);
      expect(await readStatus(shopper.here)).toEqual({ status: 401, error: ENDED });
    });
  });

  test('a session ended through another process is refused once that process’s change is heard', async () => {
    const shopper = await newShopper();
    expect((await readStatus(shopper.here)).status).toBe(200);
    expect((await readStatus(shopper.there)).status).toBe(200);
    const heard = changeHeardBy(store.app, 'customer_sessions');
    const otherShop = storefront(other, store.keys.publishable_test.token);
    await otherShop.POST('/v1/auth/logout', { body: { refresh_token: shopper.session.refresh_token } });
    expect(await readStatus(shopper.there)).toEqual({ status: 401, error: ENDED });
    await heard;
    expect(await readStatus(shopper.here)).toEqual({ status: 401, error: ENDED });
  });

  test('a session revoked in SQL, outside every service, is refused once its notification arrives', async () => {
    const shopper = await newShopper();
    expect((await readStatus(shopper.here)).status).toBe(200);
    const heard = changeHeardBy(store.app, 'customer_sessions');
    const sessionId = jwtPayload(shopper.session.access_token).sid as string;
    await store.app.deps.db.$executeRaw`UPDATE customer_sessions SET revoked_at = now() WHERE id = ${sessionId}`;
    await heard;
    expect(await readStatus(shopper.here)).toEqual({ status: 401, error: ENDED });
  });

  test("a deleted customer's token is refused by the next request, though the session itself was not ended", async () => {
    const shopper = await newShopper();
    expect((await readStatus(shopper.here)).status).toBe(200);
    const heard = changeHeardBy(store.app, 'customers');
    await store.app.deps.db
      .$executeRaw`UPDATE customers SET deleted_at = now() WHERE id = ${shopper.session.customer.id}`;
    await heard;
    expect(await readStatus(shopper.here)).toEqual({ status: 401, error: ENDED });
  });
});
