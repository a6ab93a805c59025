import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCompany } from '../../factories/company.factory.js';
import { createGroup } from '../../factories/customer-group.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder, readDraft } from '../../factories/draft-order.factory.js';
import { createPriceList, setPrices } from '../../factories/price-list.factory.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const BASE = 2500;
let variant: string;
let wholesale: string;

/** A variant priced 25.00 and the `wholesale` list: 22.00 from 1, 19.00 from 10. */
beforeAll(async () => {
  variant = (await createProduct(store.api, { variants: [{ title: 'Default', price: BASE }] })).variants[0].id;
  wholesale = (await createPriceList(store.api, { slug: 'wholesale', name: 'Wholesale' })).id;
  await setPrices(store.api, wholesale, [
    { variant_id: variant, amount: 2200 },
    { variant_id: variant, min_quantity: 10, amount: 1900 },
  ]);
});

const priced = (item: { unit_price: number; base_price: number | null; price_list_id: string | null }) => [
  item.unit_price,
  item.base_price,
  item.price_list_id,
];
const draftFor = (customer_id?: string) => createDraftOrder(store.api, { customer_id });
const setQuantity = async (draftId: string, itemId: string, quantity: number) =>
  (
    await store.api.PATCH('/v1/draft-orders/{id}/items/{item_id}', {
      params: { path: { id: draftId, item_id: itemId } },
      body: { quantity },
    })
  ).data!.data;

describe('addDraftOrderItems with price lists', () => {
  test("a customer with active_price_key gets the list's tier price for 10 and its base tier for 1; the line names the list and shows the base price", async () => {
    const customer = await createCustomer(store.api, { active_price_key: 'wholesale' });
    const draft = await draftFor(customer.id);
    const [ten, one] = await addItems(store.api, draft.id, [
      { variant_id: variant, quantity: 10 },
      { variant_id: variant, quantity: 1 },
    ]);
    expect(priced(ten)).toEqual([1900, BASE, wholesale]);
    expect(priced(one)).toEqual([2200, BASE, wholesale]);
    expect(ten.total).toBe(19000);
    expect((await readDraft(store.api, draft.id)).subtotal).toBe(19000 + 2200);
  });

  test('a customer only in a manual group with that key gets the same prices', async () => {
    const customer = await createCustomer(store.api);
    const group = await createGroup(store.api, { active_price_key: 'wholesale' });
    await store.api.POST('/v1/customer-groups/{id}/members', {
      params: { path: { id: group.id } },
      body: { customer_ids: [customer.id] },
    });
    const draft = await draftFor(customer.id);
    const [ten] = await addItems(store.api, draft.id, [{ variant_id: variant, quantity: 10 }]);
    expect(priced(ten)).toEqual([1900, BASE, wholesale]);
  });

  test('a draft without a customer, and a customer without keys, pay the base price and name no list', async () => {
    const [anonymous] = await addItems(store.api, (await draftFor()).id, [{ variant_id: variant, quantity: 10 }]);
    expect(priced(anonymous)).toEqual([BASE, BASE, null]);
    const plain = await createCustomer(store.api);
    const [item] = await addItems(store.api, (await draftFor(plain.id)).id, [{ variant_id: variant, quantity: 10 }]);
    expect(priced(item)).toEqual([BASE, BASE, null]);
  });

  test('custom items keep the price sent and have no base price', async () => {
    const customer = await createCustomer(store.api, { active_price_key: 'wholesale' });
    const [custom] = await addItems(store.api, (await draftFor(customer.id)).id, [
      { title: 'Engraving', unit_price: 500, quantity: 2 },
    ]);
    expect(priced(custom)).toEqual([500, null, null]);
  });

  test("the customer's own list wins; otherwise the lowest of its groups' and company's lists", async () => {
    const cheap = await createPriceList(store.api, { slug: 'partner', name: 'Partner' });
    await setPrices(store.api, cheap.id, [{ variant_id: variant, amount: 1500 }]);
    const group = await createGroup(store.api, { active_price_key: 'partner' });
    const own = await createCustomer(store.api, { active_price_key: 'wholesale' });
    const grouped = await createCustomer(store.api);
    await store.api.POST('/v1/customer-groups/{id}/members', {
      params: { path: { id: group.id } },
      body: { customer_ids: [own.id, grouped.id] },
    });
    const [ownItem] = await addItems(store.api, (await draftFor(own.id)).id, [{ variant_id: variant, quantity: 1 }]);
    expect(priced(ownItem)).toEqual([2200, BASE, wholesale]);
    const [groupedItem] = await addItems(store.api, (await draftFor(grouped.id)).id, [
      { variant_id: variant, quantity: 1 },
    ]);
    expect(priced(groupedItem)).toEqual([1500, BASE, cheap.id]);

    // A company contact (linked to the customer; by e-mail only for a verified e-mail, see
    // company-contact-keys.test.ts) buys from the company's list when it is the lowest.
    const buyer = await createCustomer(store.api, { email: `buyer.${Date.now()}@acme-trade.example` });
    const company = await createCompany(store.api, { active_price_key: 'partner' });
    await store.api.POST('/v1/companies/{id}/contacts', {
      params: { path: { id: company.id } },
      body: { name: 'Buyer', email: buyer.email.toUpperCase(), customer_id: buyer.id },
    });
    const wholesaleGroup = await createGroup(store.api, { active_price_key: 'wholesale' });
    await store.api.POST('/v1/customer-groups/{id}/members', {
      params: { path: { id: wholesaleGroup.id } },
      body: { customer_ids: [buyer.id] },
    });
    const [companyItem] = await addItems(store.api, (await draftFor(buyer.id)).id, [
      { variant_id: variant, quantity: 1 },
    ]);
    expect(priced(companyItem)).toEqual([1500, BASE, cheap.id]);
  });

  test('a draft list, a list whose window has not started and a list above the base price do not apply', async () => {
    const other = (await createProduct(store.api, { variants: [{ title: 'Default', price: 1000 }] })).variants[0].id;
    const lists = await Promise.all([
      createPriceList(store.api, { slug: 'drafted', status: 'draft' }),
      createPriceList(store.api, { slug: 'future', starts_at: '2099-01-01T00:00:00Z' }),
      createPriceList(store.api, { slug: 'surcharge' }),
    ]);
    for (const list of lists)
      await setPrices(store.api, list.id, [{ variant_id: other, amount: list.slug === 'surcharge' ? 1200 : 800 }]);
    for (const slug of ['drafted', 'future', 'surcharge']) {
      const customer = await createCustomer(store.api, { active_price_key: slug });
      const [item] = await addItems(store.api, (await draftFor(customer.id)).id, [{ variant_id: other, quantity: 1 }]);
      expect([slug, ...priced(item)]).toEqual([slug, 1000, 1000, null]);
    }
    await store.api.PATCH('/v1/price-lists/{id}', {
      params: { path: { id: lists[2].id } },
      body: { allows_increase: true },
    });
    const customer = await createCustomer(store.api, { active_price_key: 'surcharge' });
    const [item] = await addItems(store.api, (await draftFor(customer.id)).id, [{ variant_id: other, quantity: 1 }]);
    expect(priced(item)).toEqual([1200, 1000, lists[2].id]);
  });

  test('an automatic group gaining the customer (a tag added) moves it onto the group list', async () => {
    await createGroup(store.api, {
      type: 'automatic',
      conditions: [{ field: 'tag', operator: 'is_same_as', value: 'trade-account' }],
      active_price_key: 'wholesale',
    });
    const customer = await createCustomer(store.api);
    const draft = await draftFor(customer.id);
    const [before] = await addItems(store.api, draft.id, [{ variant_id: variant, quantity: 10 }]);
    expect(priced(before)).toEqual([BASE, BASE, null]);
    await store.api.PATCH('/v1/customers/{id}', {
      params: { path: { id: customer.id } },
      body: { tags: ['trade-account'] },
    });
    const [after] = await addItems(store.api, draft.id, [{ variant_id: variant, quantity: 10 }]);
    expect(priced(after)).toEqual([1900, BASE, wholesale]);
  });
});

describe('re-resolution on draft changes', () => {
  test("changing a line's quantity moves it between tiers; totals follow", async () => {
    const customer = await createCustomer(store.api, { active_price_key: 'wholesale' });
    const draft = await draftFor(customer.id);
    const [item] = await addItems(store.api, draft.id, [{ variant_id: variant, quantity: 1 }]);
    expect(priced(await setQuantity(draft.id, item.id, 12))).toEqual([1900, BASE, wholesale]);
    expect((await readDraft(store.api, draft.id)).subtotal).toBe(12 * 1900);
    expect(priced(await setQuantity(draft.id, item.id, 2))).toEqual([2200, BASE, wholesale]);
    expect((await readDraft(store.api, draft.id)).subtotal).toBe(2 * 2200);
  });

  test("changing the draft's customer re-prices every variant line; removing it goes back to base prices", async () => {
    const plain = await createCustomer(store.api);
    const trade = await createCustomer(store.api, { active_price_key: 'wholesale' });
    const draft = await draftFor(plain.id);
    await addItems(store.api, draft.id, [
      { variant_id: variant, quantity: 10 },
      { title: 'Engraving', unit_price: 500, quantity: 1 },
    ]);
    const patch = async (customer_id: string | null) => {
      await store.api.PATCH('/v1/draft-orders/{id}', { params: { path: { id: draft.id } }, body: { customer_id } });
      const read = await store.api.GET('/v1/draft-orders/{id}', {
        params: { path: { id: draft.id }, query: { expand: ['items'] } },
      });
      return read.data!.data as { subtotal: number; items?: Parameters<typeof priced>[0][] };
    };
    const traded = await patch(trade.id);
    expect(traded.items!.map(priced)).toEqual([
      [1900, BASE, wholesale],
      [500, null, null],
    ]);
    expect(traded.subtotal).toBe(19000 + 500);
    const cleared = await patch(null);
    expect(cleared.items!.map(priced)).toEqual([
      [BASE, BASE, null],
      [500, null, null],
    ]);
    const events = await store.api.GET('/v1/events', {
      params: { query: { resource_type: 'draft_order', resource_id: draft.id, order: 'asc' } },
    });
    const changes = events.data!.data.at(-1)!.metadata.changes as Record<string, unknown>;
    expect(Object.keys(changes)).toEqual(expect.arrayContaining(['customer_id', 'subtotal']));
  });

  test('a deleted price list leaves existing lines as they are until they are re-priced', async () => {
    const list = await createPriceList(store.api, { slug: 'temporary' });
    await setPrices(store.api, list.id, [{ variant_id: variant, amount: 2000 }]);
    const customer = await createCustomer(store.api, { active_price_key: 'temporary' });
    const draft = await draftFor(customer.id);
    const [item] = await addItems(store.api, draft.id, [{ variant_id: variant, quantity: 1 }]);
    expect(priced(item)).toEqual([2000, BASE, list.id]);
    await store.api.DELETE('/v1/price-lists/{id}', { params: { path: { id: list.id } } });
    const kept = await store.api.GET('/v1/draft-orders/{id}', {
      params: { path: { id: draft.id }, query: { expand: ['items'] } },
    });
    expect(priced((kept.data!.data as { items: Parameters<typeof priced>[0][] }).items[0])).toEqual([
      2000,
      BASE,
      list.id,
    ]);
    expect(priced(await setQuantity(draft.id, item.id, 3))).toEqual([BASE, BASE, null]);
  });
});
