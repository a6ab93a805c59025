import { beforeAll, describe, expect, test } from '@jest/globals';
import { createProduct, type ProductResource } from '../../factories/catalog.factory.js';
import { BERLIN, startCheckout, withSecret } from '../../factories/checkout.factory.js';
import { registerCustomer, signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { createPriceList, setPrices } from '../../factories/price-list.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { createRate, createZone } from '../../factories/shipping.factory.js';
import { purgeCheckouts } from '../../../src/modules/checkouts/checkouts.purge.js';
import { useStore } from '../../setup/store.js';

const TAX = { enabled: true, inclusive: false, rates: [{ country: 'DE', rate: 0.19 }] };
const store = useStore({ project: { currency: 'EUR', tax: TAX, checkouts_per_ip_per_minute: 1_000_000 } });
let boots: ProductResource;
let socks: ProductResource;
const shop = () => storefront(store.app, store.keys.publishable_test.token);

beforeAll(async () => {
  boots = await createProduct(store.api, {
    title: 'Trail Runner 2',
    variants: [{ title: 'EU 42', sku: 'TR2-42', price: 9900, weight: 900 }],
  });
  socks = await createProduct(store.api, {
    title: 'Wool Socks',
    variants: [{ title: 'M', price: 1500, sale_price: 1250, weight: 100 }],
  });
});

const boot = () => boots.variants[0].id;
const sock = () => socks.variants[0].id;

describe('createCheckout', () => {
  test('answers 201 with a chk_ id, the client secret once, lines priced from the variant (its sale price) and totals', async () => {
    const { data, response } = await shop().POST('/v1/checkouts', {
      body: {
        currency: 'EUR',
        email: 'jane@example.com',
        lines: [
          { variant_id: boot(), quantity: 2 },
          { variant_id: sock(), quantity: 3 },
          { variant_id: boot(), quantity: 1 },
        ],
      },
    });
    expect(response.status).toBe(201);
    expect(data!.client_secret).toMatch(/^chks_[A-Za-z0-9_-]{43}$/);
    const checkout = data!.data;
    expect(checkout.id).toMatch(/^chk_[0-9a-z]{26}$/);
    expect(checkout).toMatchObject({ status: 'open', customer_id: null, email: 'jane@example.com', currency: 'EUR' });
    // Lines of one variant are merged; sale price wins over the price.
    expect(checkout.lines.map((l) => [l.variant_id, l.quantity, l.unit_price, l.total])).toEqual([
      [boot(), 3, 9900, 29700],
      [sock(), 3, 1250, 3750],
    ]);
    // No address yet: no tax rate matches.
    expect(checkout).toMatchObject({ subtotal: 33450, tax: 0, shipping_cost: 0, discount: 0, total: 33450 });
    expect(Date.parse(checkout.expires_at) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
    const stored = await store.app.deps.db.checkout.findUnique({ where: { id: checkout.id } });
    expect(stored!.secretHash).not.toContain(data!.client_secret);
    expect(stored!.secretHash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('a variant in another currency, of no product of the project, or a quantity of 1000 answers 400 on its field and writes nothing', async () => {
    const before = await store.app.deps.db.checkout.count();
    const bad = await shop().POST('/v1/checkouts', {
      body: { currency: 'USD', lines: [{ variant_id: boot(), quantity: 1 }] },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error!.error).toMatchObject({ code: 'invalid_request', field: 'lines[0].variant_id' });
    expect(bad.error!.error.message).toContain('priced in EUR');
    const other = await createProject(store.app, { currency: 'EUR' });
    const foreign = await createProduct(store.app.client(other.keys.secret_test.token), {
      variants: [{ title: 'X', price: 1 }],
    });
    const unknown = await shop().POST('/v1/checkouts', {
      body: { currency: 'EUR', lines: [{ variant_id: foreign.variants[0].id, quantity: 1 }] },
    });
    expect(unknown.error!.error).toMatchObject({ code: 'invalid_request', field: 'lines[0].variant_id' });
    const many = await shop().POST('/v1/checkouts', {
      body: { currency: 'EUR', lines: [{ variant_id: boot(), quantity: 1000 }] },
    });
    expect(many.response.status).toBe(400);
    expect(await store.app.deps.db.checkout.count()).toBe(before);
  });

  test('at most checkouts_per_ip_per_minute checkouts a minute from one address: then 429 rate_limited', async () => {
    const own = await createProject(store.app, { currency: 'EUR', checkouts_per_ip_per_minute: 2 });
    const client = storefront(store.app, own.keys.publishable_test.token);
    for (let i = 0; i < 2; i++)
      expect((await client.POST('/v1/checkouts', { body: { currency: 'EUR' } })).response.status).toBe(201);
    const refused = await client.POST('/v1/checkouts', { body: { currency: 'EUR' } });
    expect(refused.response.status).toBe(429);
    expect(refused.error!.error.code).toBe('rate_limited');
    expect(refused.response.headers.get('Retry-After')).toMatch(/^\d+$/);
  });
});

describe('getCheckout', () => {
  test("is unreadable without its secret: no secret, a wrong one, another project's key all answer 404 as an unknown id does", async () => {
    const { checkout, secret } = await startCheckout(shop(), { currency: 'EUR', shipping_address: BERLIN });
    const ok = await shop().GET('/v1/checkouts/{id}', withSecret(checkout.id, secret));
    expect(ok.response.status).toBe(200);
    expect(ok.data!.data.shipping_address).toMatchObject({ line1: 'Friedrichstrasse 68' });
    for (const attempt of [
      withSecret(checkout.id),
      withSecret(checkout.id, `${secret.slice(0, -1)}x`),
      withSecret(checkout.id, 'nope'),
    ]) {
      const refused = await shop().GET('/v1/checkouts/{id}', attempt);
      expect(refused.response.status).toBe(404);
      expect(refused.error!.error).toEqual({ code: 'not_found', message: 'Checkout not found.' });
    }
    const other = await createProject(store.app);
    const foreign = await storefront(store.app, other.keys.publishable_test.token).GET(
      '/v1/checkouts/{id}',
      withSecret(checkout.id, secret),
    );
    expect(foreign.response.status).toBe(404);
    // Nor can it be changed without the secret.
    const write = await shop().PATCH('/v1/checkouts/{id}', { ...withSecret(checkout.id), body: { note: 'x' } });
    expect(write.response.status).toBe(404);
  });

  test('a signed-in customer reaches their own checkout with their token alone, priced from their price list; another customer cannot', async () => {
    const vip = await createPriceList(store.api, { slug: 'checkout-vip', currency: 'EUR' });
    await setPrices(store.api, vip.id, [{ variant_id: boot(), amount: 8000 }]);
    const jane = await registerCustomer(shop());
    await store.api.PATCH('/v1/customers/{id}', {
      params: { path: { id: jane.customer.id } },
      body: { active_price_key: 'checkout-vip' },
    });
    const janeShop = signedIn(store.app, store.keys.publishable_test.token, jane.access_token);
    const { checkout } = await startCheckout(janeShop, {
      currency: 'EUR',
      lines: [{ variant_id: boot(), quantity: 1 }],
    });
    expect(checkout).toMatchObject({ customer_id: jane.customer.id, email: jane.customer.email, subtotal: 8000 });
    expect(checkout.lines[0]).toMatchObject({ unit_price: 8000, price_list_id: vip.id });
    expect((await janeShop.GET('/v1/checkouts/{id}', withSecret(checkout.id))).response.status).toBe(200);
    const bob = await registerCustomer(shop());
    const bobShop = signedIn(store.app, store.keys.publishable_test.token, bob.access_token);
    expect((await bobShop.GET('/v1/checkouts/{id}', withSecret(checkout.id))).response.status).toBe(404);
  });
});

describe('updateCheckout and the lines', () => {
  test('the address brings the project tax; lines added (merged), changed and removed by id recompute every total', async () => {
    const { checkout, secret } = await startCheckout(shop(), {
      currency: 'EUR',
      lines: [{ variant_id: boot(), quantity: 1 }],
    });
    const at = (extra = {}) => ({ ...withSecret(checkout.id, secret), ...extra });
    const patched = await shop().PATCH('/v1/checkouts/{id}', {
      ...at(),
      body: { shipping_address: BERLIN, email: 'jo@example.com' },
    });
    expect(patched.response.status).toBe(200);
    // 19 % of 9900, rounded half-up: 1881.
    expect(patched.data!.data).toMatchObject({ subtotal: 9900, tax: 1881, total: 11781, email: 'jo@example.com' });
    expect(patched.data!.data.tax_data!.tax_lines).toEqual([{ name: 'DE tax 19%', rate: 0.19, amount: 1881 }]);

    const added = await shop().POST('/v1/checkouts/{id}/lines', {
      ...at(),
      body: {
        lines: [
          { variant_id: sock(), quantity: 2 },
          { variant_id: boot(), quantity: 1 },
        ],
      },
    });
    expect(added.response.status).toBe(201);
    const lines = added.data!.data.lines;
    expect(lines.map((l) => [l.variant_id, l.quantity])).toEqual([
      [boot(), 2],
      [sock(), 2],
    ]);
    // 19800 + 2500; tax 3762 + 475.
    expect(added.data!.data).toMatchObject({ subtotal: 22300, tax: 4237, total: 26537 });

    const changed = await shop().PATCH('/v1/checkouts/{id}/lines/{line_id}', {
      params: { path: { id: checkout.id, line_id: lines[1].id }, header: { 'X-Checkout-Secret': secret } },
      body: { quantity: 5 },
    });
    expect(changed.data!.data).toMatchObject({ subtotal: 26050 });
    const removed = await shop().DELETE('/v1/checkouts/{id}/lines/{line_id}', {
      params: { path: { id: checkout.id, line_id: lines[0].id }, header: { 'X-Checkout-Secret': secret } },
    });
    expect(removed.response.status).toBe(204);
    const after = (await shop().GET('/v1/checkouts/{id}', at())).data!.data;
    expect(after.lines.map((l) => l.id)).toEqual([lines[1].id]);
    expect(after).toMatchObject({ subtotal: 6250, tax: 1188, total: 7438 });
    const gone = await shop().DELETE('/v1/checkouts/{id}/lines/{line_id}', {
      params: { path: { id: checkout.id, line_id: lines[0].id }, header: { 'X-Checkout-Secret': secret } },
    });
    expect(gone.response.status).toBe(404);
  });

  test('shipping rates come from the rate lookup for the address and contents; a chosen rate sets shipping_cost; a line change clears it', async () => {
    const own = await createProject(store.app, { currency: 'EUR', checkouts_per_ip_per_minute: 1000 });
    const api = store.app.client(own.keys.secret_test.token);
    const client = storefront(store.app, own.keys.publishable_test.token);
    const product = await createProduct(api, { variants: [{ title: 'Heavy', price: 5000, weight: 3000 }] });
    const zone = await createZone(api, { countries: ['DE'] });
    const light = await createRate(api, zone.id, {
      name: 'Light',
      price: 490,
      currency: 'EUR',
      max_order_weight: 5000,
    });
    const heavy = await createRate(api, zone.id, { name: 'Freight', price: 2900, currency: 'EUR' });
    const { checkout, secret } = await startCheckout(client, {
      currency: 'EUR',
      lines: [{ variant_id: product.variants[0].id, quantity: 1 }],
    });
    const at = withSecret(checkout.id, secret);
    expect((await client.GET('/v1/checkouts/{id}/shipping-rates', at)).data!.data).toEqual([]);
    await client.PATCH('/v1/checkouts/{id}', { ...at, body: { shipping_address: BERLIN } });
    const rates = (await client.GET('/v1/checkouts/{id}/shipping-rates', at)).data!.data;
    expect(rates.map((r) => r.id)).toEqual([light.id, heavy.id]);
    const chosen = await client.PATCH('/v1/checkouts/{id}', { ...at, body: { shipping_rate_id: light.id } });
    expect(chosen.data!.data).toMatchObject({
      shipping_cost: 490,
      total: 5490,
      shipping_rate: { id: light.id, price: 490 },
    });
    const wrong = await client.PATCH('/v1/checkouts/{id}', {
      ...at,
      body: { shipping_rate_id: 'shr_01jd5t1b3d5f7h9k1m3p5r7t9v' },
    });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error!.error.field).toBe('shipping_rate_id');
    // Two units weigh 6000 g: the light rate no longer applies, and the choice is cleared.
    const more = await client.PATCH('/v1/checkouts/{id}/lines/{line_id}', {
      params: { path: { id: checkout.id, line_id: checkout.lines[0].id }, header: { 'X-Checkout-Secret': secret } },
      body: { quantity: 2 },
    });
    expect(more.data!.data).toMatchObject({ shipping_rate: null, shipping_cost: 0, total: 10000 });
    expect((await client.GET('/v1/checkouts/{id}/shipping-rates', at)).data!.data.map((r) => r.id)).toEqual([heavy.id]);
  });

  test('at most 100 lines: the 101st answers 400 on lines', async () => {
    const variants = Array.from({ length: 101 }, (_, i) => ({ title: `V${i}`, price: 100 + i }));
    const big = await createProduct(store.api, { variants: variants.slice(0, 100) });
    const extra = await createProduct(store.api, { variants: variants.slice(100) });
    const { checkout, secret } = await startCheckout(shop(), {
      currency: 'EUR',
      lines: big.variants.map((v) => ({ variant_id: v.id, quantity: 1 })),
    });
    expect(checkout.lines).toHaveLength(100);
    const refused = await shop().POST('/v1/checkouts/{id}/lines', {
      ...withSecret(checkout.id, secret),
      body: { lines: [{ variant_id: extra.variants[0].id, quantity: 1 }] },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.error.field).toBe('lines');
  });
});

describe('purge-checkouts', () => {
  test('deletes open checkouts past expires_at and checkouts completed more than 30 days ago; keeps the rest', async () => {
    const db = store.app.deps.db;
    const expired = await startCheckout(shop(), { currency: 'EUR' });
    const live = await startCheckout(shop(), { currency: 'EUR' });
    await db.checkout.update({ where: { id: expired.checkout.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(
      (await shop().GET('/v1/checkouts/{id}', withSecret(expired.checkout.id, expired.secret))).response.status,
    ).toBe(404);
    const counts = await purgeCheckouts(db);
    expect(counts.expired).toBeGreaterThanOrEqual(1);
    expect(await db.checkout.findUnique({ where: { id: expired.checkout.id } })).toBeNull();
    expect(await db.checkout.findUnique({ where: { id: live.checkout.id } })).not.toBeNull();
  });
});
