/**
 * Fixtures for the operations whose success path needs more than an id that exists: a metafield definition
 * for the slug, a product in the collection, a member in the group, a delivery of an active subscription,
 * a draft order with an e-mail, an order, a refresh or reset token, the customer's current password. They
 * are made through the API in the fuzzer's setup (`seedFixtures`) and kept alive by the harness (tokens and
 * passwords follow the answers); `fixtureHints` gives each such operation valid path parameters and bodies
 * that meet its preconditions, mixed in with the schema's own values (operations.ts, `Hint`). Every answer is
 * still checked against the contract, and invalid requests mutate these values like any other.
 */
import fc from 'fast-check';
import type { IdPool } from './id-pool.js';
import type { Hint } from './operations.js';
import { valid, type SchemaContext } from './schema-arbitrary.js';

/** `call(method, path, token, body, header)`: a setup request that must succeed; the answer's JSON. */
export type SetupCall = (method: string, path: string, token: string, body?: unknown, header?: string) => Promise<any>;

/** The metafield definitions seeded on every owner type: a slug, and valid values of its type. */
const DEFINITIONS = [
  { slug: 'fuzz_integer', value_type: 'integer', value: () => fc.integer({ min: -1_000_000, max: 1_000_000 }) },
  { slug: 'fuzz_text', value_type: 'single_line_text', value: () => fc.string({ minLength: 1, maxLength: 100, unit: 'grapheme' }).filter((v) => !/[\r\n\u0000]/.test(v) && v.trim() !== '') },
  { slug: 'fuzz_flag', value_type: 'boolean', value: () => fc.boolean() },
] as const;

const OWNERS = { product: 'products', variant: 'variants', collection: 'collections', customer: 'customers', order: 'orders' } as const;

/** Passwords that meet the rule (upper, lower, digit, 8+), with a varying part. */
const goodPassword = fc.tuple(fc.constantFrom('Winter', 'Spring', 'Ünïcode', 'Zeta'), fc.nat({ max: 1_000_000 }), fc.string({ maxLength: 20, unit: 'grapheme-ascii' })).map(([w, n, tail]) => `${w}-Trail-${n}a${tail}`.slice(0, 128));

export interface Fixtures {
  /** Ids the fixtures rely on; kept out of the id pool so fuzzed updates and deletes do not reach them. */
  protectedIds: string[];
  owners: Record<keyof typeof OWNERS, string>;
  collection: string;
  product: string;
  group: string;
  member: string;
  locations: [string, string];
  variant: string;
  webhook: string;
  delivery: string;
  /** Draft orders with an e-mail and a line (complete and send need both); more come from answers. */
  readyDrafts: string[];
  /** Refresh tokens from answers (single use: a used one is refused, and ends its session). */
  refreshTokens: string[];
  /** The customer that receives the password-reset e-mails, and the newest unused token. */
  reset: { email: string; token: string };
}

/**
 * Makes the fixtures through the API (secret key `secret`, storefront key `publishable`, the project's id for
 * its outbox, read with the platform token `platform`).
 */
export async function seedFixtures(call: SetupCall, keys: { secret: string; publishable: string; platform: string }, projectId: string): Promise<Fixtures> {
  const { secret, publishable } = keys;
  const data = async (method: string, path: string, body?: unknown) => (await call(method, path, secret, body)).data;

  // A subscription first, so the customers created below record deliveries for it.
  const webhook = await data('POST', '/v1/webhooks', { url: 'https://hooks.fuzz.example.com/in', events: ['customer.created'] });
  const locations: [string, string] = [
    (await data('POST', '/v1/locations', { name: 'Fuzz Warehouse', type: 'warehouse', country: 'DE' })).id,
    (await data('POST', '/v1/locations', { name: 'Fuzz Store', type: 'retail', country: 'DE' })).id,
  ];
  const product = await data('POST', '/v1/products', { title: 'Fuzz Fixture Runner', variants: [{ title: 'Default', price: 4_900 }] });
  const variant: string = product.variants[0].id;
  for (const location_id of locations) await data('PUT', '/v1/inventory-levels', { variant_id: variant, location_id, available: 20 });
  const collection = (await data('POST', '/v1/collections', { title: 'Fuzz Fixture Collection' })).id;
  await data('POST', `/v1/collections/${collection}/products`, { product_ids: [product.id] });
  const member = (await data('POST', '/v1/customers', { email: 'fuzz-member@example.com', first_name: 'Fuzz', last_name: 'Member' })).id;
  const group = (await data('POST', '/v1/customer-groups', { name: 'Fuzz Fixture Group' })).id;
  await data('POST', `/v1/customer-groups/${group}/members`, { customer_ids: [member] });

  const zone = (await data('POST', '/v1/shipping/zones', { name: 'Fuzz Zone', countries: ['US', 'CA', 'DE'] })).id;
  await data('POST', `/v1/shipping/zones/${zone}/rates`, { name: 'Fuzz Rate', price: 990, currency: 'USD' });
  await data('POST', '/v1/search/merchandising', { name: 'Fuzz pin', match_query: 'runner', match_type: 'contains', action: 'pin', product_id: product.id, pin_position: 0 });

  // Draft orders ready to send or complete; one completed, so orders exist.
  const readyDrafts: string[] = [];
  for (let i = 0; i < 4; i++) {
    const draft = await data('POST', '/v1/draft-orders', { currency: product.currency ?? 'USD', customer_email: `fuzz-buyer-${i}@example.com` });
    await data('POST', `/v1/draft-orders/${draft.id}/items`, { items: [{ variant_id: variant, quantity: 1 }] });
    readyDrafts.push(draft.id);
  }
  const order = (await data('POST', `/v1/draft-orders/${readyDrafts.shift()}/complete`)).id;

  const owners = { product: product.id, variant, collection, customer: member, order };
  const protectedIds = [webhook.id, ...locations, product.id, variant, collection, member, group];
  for (const owner_type of Object.keys(OWNERS)) {
    for (const d of DEFINITIONS) protectedIds.push((await data('POST', '/v1/store/metafields', { label: d.slug, slug: d.slug, owner_type, value_type: d.value_type })).id);
  }

  const deliveries = (await call('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=1`, secret)).data;
  if (!deliveries.length) throw new Error('fuzz setup: the fixture subscription recorded no delivery');

  const reset = { email: 'fuzz-reset@example.com', token: '' };
  await call('POST', '/v1/auth/register', publishable, { email: reset.email, password: 'Fuzz-Reset-Passw0rd', first_name: 'Fuzz', last_name: 'Reset' }, 'X-API-Key');
  const fixtures: Fixtures = {
    protectedIds,
    owners,
    collection,
    product: product.id,
    group,
    member,
    locations,
    variant,
    webhook: webhook.id,
    delivery: deliveries[0].id,
    readyDrafts,
    refreshTokens: [],
    reset,
  };
  await requestReset(call, keys, projectId, fixtures);
  return fixtures;
}

/** A new password-reset e-mail for the reset customer; its token becomes the one the hints send. */
export async function requestReset(call: SetupCall, keys: { publishable: string; platform: string }, projectId: string, fixtures: Fixtures): Promise<void> {
  await call('POST', '/v1/auth/forgot-password', keys.publishable, { email: fixtures.reset.email }, 'X-API-Key');
  const outbox = await call('GET', `/platform/v1/projects/${projectId}/outbox?to=${encodeURIComponent(fixtures.reset.email)}&limit=1`, keys.platform);
  fixtures.reset.token = outbox.data[0].data.token;
}

/** What the fixtures learn from a successful answer: draft orders ready to complete, refresh tokens. */
export function harvestFixtures(fixtures: Fixtures, value: unknown): void {
  if (Array.isArray(value)) for (const item of value) harvestFixtures(fixtures, item);
  else if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v.refresh_token === 'string') {
      fixtures.refreshTokens.push(v.refresh_token);
      if (fixtures.refreshTokens.length > 50) fixtures.refreshTokens.shift();
    }
    if (typeof v.id === 'string' && v.id.startsWith('dord_') && v.status === 'open' && typeof v.customer_email === 'string' && Array.isArray(v.line_items) && v.line_items.length > 0) {
      if (!fixtures.readyDrafts.includes(v.id)) fixtures.readyDrafts.push(v.id);
      if (fixtures.readyDrafts.length > 50) fixtures.readyDrafts.shift();
    }
    for (const item of Object.values(v)) if (item && typeof item === 'object') harvestFixtures(fixtures, item);
  }
}

/** One of the list's entries as it is when the value is drawn (the list changes as answers come). */
const pick = <T>(list: () => readonly T[], fallback: T): fc.Arbitrary<T> => fc.nat().map((n) => (list().length ? list()[n % list().length] : fallback));

/**
 * Hints per operation id. `customer` is the signed-in storefront customer (its password changes when a
 * fuzzed password change succeeds); `ids` the id pool, for owners other than the fixtures.
 */
export function fixtureHints(f: Fixtures, context: SchemaContext, customer: { email: string; password: string }, ids: IdPool): Record<string, Hint> {
  const hints: Record<string, Hint> = {};
  const schema = (name: string) => context.components[name];

  // Metafields: an owner (the fixture's or any of the pool) and a seeded definition, with a value of its type.
  for (const owner of Object.keys(OWNERS) as Array<keyof typeof OWNERS>) {
    const prefix = f.owners[owner].split('_')[0];
    const ownerId = fc.oneof(fc.constant(f.owners[owner]), ids.arbitrary([prefix]));
    const Owner = owner[0].toUpperCase() + owner.slice(1);
    const definition = fc.constantFrom(...DEFINITIONS);
    const withSlug = fc.record({ id: ownerId, slug: definition.map((d) => d.slug) });
    hints[`set${Owner}Metafield`] = { path: withSlug };
    hints[`delete${Owner}Metafield`] = { path: withSlug };
  }
  // The set-one body must suit the slug drawn for the path, which the path arbitrary does not tell the body:
  // the values of every seeded type are offered, and those of the other types answer the declared 400.
  const value = fc.oneof(...DEFINITIONS.map((d) => d.value() as fc.Arbitrary<unknown>)).map((v) => ({ value: v }));
  for (const owner of Object.keys(OWNERS)) hints[`set${owner[0].toUpperCase()}${owner.slice(1)}Metafield`].body = value;

  hints.addCollectionProducts = { path: fc.constant({ id: f.collection }), body: fc.constant({ product_ids: [f.product] }) };
  hints.removeCollectionProduct = { path: fc.constant({ id: f.collection, product_id: f.product }) };
  hints.addCustomerGroupMembers = { path: fc.constant({ id: f.group }), body: fc.constant({ customer_ids: [f.member] }) };
  hints.removeCustomerGroupMember = { path: fc.constant({ id: f.group, customer_id: f.member }) };

  const [a, b] = f.locations;
  hints.setInventoryLevel = { body: fc.record({ variant_id: fc.constant(f.variant), location_id: fc.constantFrom(a, b), available: fc.integer({ min: 0, max: 1_000_000 }) }) };
  // Every level of the first location moves to the second (after the first transfer, none: still 200).
  hints.transferLocationInventory = { path: fc.constant({ id: a }), body: fc.constant({ destination_location_id: b }) };

  hints.retryWebhookDelivery = { path: fc.constant({ id: f.webhook, delivery_id: f.delivery }) };
  hints.completeDraftOrder = { path: pick(() => f.readyDrafts, 'dord_00000000000000000000000000').map((id) => ({ id })) };
  hints.sendDraftOrder = { path: hints.completeDraftOrder.path };

  // Shipping: currencies that exist and bound pairs in order (min ≤ max), the rest from the schema.
  const ordered = (body: any) => {
    const out = { ...body };
    for (const pair of ['order_subtotal', 'order_weight', 'delivery_days']) {
      const [min, max] = [out[`min_${pair}`], out[`max_${pair}`]];
      if (typeof min === 'number' && typeof max === 'number' && min > max) [out[`min_${pair}`], out[`max_${pair}`]] = [max, min];
    }
    return out;
  };
  const currency = fc.constantFrom('USD', 'EUR', 'GBP', 'JPY');
  hints.createShippingRate = { body: fc.tuple(valid(schema('ShippingRateCreate'), context), currency).map(([body, c]) => ordered({ ...(body as object), currency: c })) };
  hints.updateShippingRate = {
    body: fc.tuple(valid(schema('ShippingRateUpdate'), context), currency).map(([body, c]) => {
      // Bounds are checked against the stored rate as well: only complete pairs are sent.
      const out: any = { ...(body as object), ...('currency' in (body as object) ? { currency: c } : {}) };
      for (const pair of ['order_subtotal', 'order_weight', 'delivery_days']) if ((`min_${pair}` in out) !== (`max_${pair}` in out)) (delete out[`min_${pair}`], delete out[`max_${pair}`]);
      return ordered(out);
    }),
  };
  hints.lookupShippingRates = {
    body: fc.tuple(valid(schema('ShippingRateLookup'), context), fc.constantFrom('US', 'ca', 'DE', 'FR', 'JP'), currency).map(([body, country, c]) => ({ ...(body as object), country, currency: c })),
  };

  // Merchandising: pin needs pin_position, boost and bury need score_multiplier.
  const merchandising = (body: any) => {
    const out = { ...body };
    if (out.action === 'pin' && typeof out.pin_position !== 'number') out.pin_position = 0;
    if ((out.action === 'boost' || out.action === 'bury') && typeof out.score_multiplier !== 'number') out.score_multiplier = 2;
    return out;
  };
  hints.createMerchandisingRule = {
    body: fc.tuple(valid(schema('MerchandisingRuleCreate'), context), fc.oneof(fc.constant(f.product), ids.arbitrary(['prod']))).map(([body, product_id]) => merchandising({ ...(body as object), product_id })),
  };

  // Customer auth: the signed-in customer's credentials, refresh tokens from answers, the newest reset token.
  hints.loginCustomer = { body: fc.nat().map(() => ({ email: customer.email, password: customer.password })) };
  hints.changeCurrentCustomerPassword = { body: goodPassword.map((new_password) => ({ current_password: customer.password, new_password })) };
  hints.refreshCustomerToken = { body: pick(() => f.refreshTokens, 'x'.repeat(43)).map((refresh_token) => ({ refresh_token })) };
  hints.resetPassword = { body: goodPassword.map((password) => ({ token: f.reset.token, password })) };
  return hints;
}
