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
  {
    slug: 'fuzz_text',
    value_type: 'single_line_text',
    value: () =>
      fc
        .string({ minLength: 1, maxLength: 100, unit: 'grapheme' })
        // eslint-disable-next-line no-control-regex -- values with NUL are refused by design
        .filter((v) => !/[\r\n\u0000]/.test(v) && v.trim() !== ''),
  },
  { slug: 'fuzz_flag', value_type: 'boolean', value: () => fc.boolean() },
] as const;

const OWNERS = {
  product: 'products',
  variant: 'variants',
  collection: 'collections',
  customer: 'customers',
  order: 'orders',
} as const;
type OwnerType = keyof typeof OWNERS;

/** Passwords that meet the rule (upper, lower, digit, 8+), with a varying part. */
const goodPassword = fc
  .tuple(
    fc.constantFrom('Winter', 'Spring', 'Ünïcode', 'Zeta'),
    fc.nat({ max: 1_000_000 }),
    fc.string({ maxLength: 20, unit: 'grapheme-ascii' }),
  )
  .map(([w, n, tail]) => `${w}-Trail-${n}a${tail}`.slice(0, 128));

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
  /** The fixture draft only the item hints reach, and its items. */
  editableDraft: { id: string; items: string[] };
  /** Line item ids of the drafts that can still change (not completed, not deleted), by draft, from answers. */
  draftItems: Map<string, string[]>;
  /** Drafts completed or deleted, and line items deleted: final, so old states in later answers do not bring them back. */
  closedDrafts: Set<string>;
  goneItems: Set<string>;
  /** The zone the fixture rates are made in (kept out of the id pool: fuzzed requests do not delete it). */
  zone: string;
  /** Shipping rates that exist, with their zone: from answers, less the deleted ones; made again when few are left. */
  rates: Map<string, string>;
  goneRates: Set<string>;
  goneZones: Set<string>;
  /** The active metafield definition ids per owner type (read again after every change the fuzzer makes). */
  definitions: Record<OwnerType, string[]>;
  /** Refresh tokens from answers (single use: a used one is refused, and ends its session). */
  refreshTokens: string[];
  /** The customer that receives the password-reset e-mails, and the newest unused token. */
  reset: { email: string; token: string };
}

/**
 * Makes the fixtures through the API (secret key `secret`, storefront key `publishable`, the project's id for
 * its outbox, read with the platform token `platform`).
 */
export async function seedFixtures(
  call: SetupCall,
  keys: { secret: string; publishable: string; platform: string },
  projectId: string,
): Promise<Fixtures> {
  const { secret, publishable } = keys;
  const data = async (method: string, path: string, body?: unknown) => (await call(method, path, secret, body)).data;

  // A subscription first, so the customers created below record deliveries for it.
  const webhook = await data('POST', '/v1/webhooks', {
    url: 'https://hooks.fuzz.example.com/in',
    events: ['customer.created'],
  });
  const locations: [string, string] = [
    (await data('POST', '/v1/locations', { name: 'Fuzz Warehouse', type: 'warehouse', country: 'DE' })).id,
    (await data('POST', '/v1/locations', { name: 'Fuzz Store', type: 'retail', country: 'DE' })).id,
  ];
  const product = await data('POST', '/v1/products', {
    title: 'Fuzz Fixture Runner',
    variants: [{ title: 'Default', price: 4_900 }],
  });
  const variant: string = product.variants[0].id;
  for (const location_id of locations)
    await data('PUT', '/v1/inventory-levels', { variant_id: variant, location_id, available: 20 });
  const collection = (await data('POST', '/v1/collections', { title: 'Fuzz Fixture Collection' })).id;
  await data('POST', `/v1/collections/${collection}/products`, { product_ids: [product.id] });
  const member = (
    await data('POST', '/v1/customers', { email: 'fuzz-member@example.com', first_name: 'Fuzz', last_name: 'Member' })
  ).id;
  const group = (await data('POST', '/v1/customer-groups', { name: 'Fuzz Fixture Group' })).id;
  await data('POST', `/v1/customer-groups/${group}/members`, { customer_ids: [member] });

  const zone = (await data('POST', '/v1/shipping/zones', { name: 'Fuzz Zone', countries: ['US', 'CA', 'DE'] })).id;
  const rates = new Map<string, string>();
  for (let i = 0; i < MIN_RATES; i++)
    rates.set(
      (await data('POST', `/v1/shipping/zones/${zone}/rates`, { name: `Fuzz Rate ${i}`, price: 990, currency: 'USD' }))
        .id,
      zone,
    );
  await data('POST', '/v1/search/merchandising', {
    name: 'Fuzz pin',
    match_query: 'runner',
    match_type: 'contains',
    action: 'pin',
    product_id: product.id,
    pin_position: 0,
  });

  // Draft orders ready to send or complete; one completed, so orders exist.
  const readyDrafts: string[] = [];
  const draftItems = new Map<string, string[]>();
  for (let i = 0; i < 4; i++) {
    const draft = await data('POST', '/v1/draft-orders', {
      currency: product.currency ?? 'USD',
      customer_email: `fuzz-buyer-${i}@example.com`,
    });
    const items = await data('POST', `/v1/draft-orders/${draft.id}/items`, {
      items: [{ variant_id: variant, quantity: 1 }],
    });
    readyDrafts.push(draft.id);
    draftItems.set(
      draft.id,
      items.map((item: { id: string }) => item.id),
    );
  }
  const completed = readyDrafts.shift()!;
  draftItems.delete(completed);
  const order = (await data('POST', `/v1/draft-orders/${completed}/complete`)).id;
  // A draft only the item hints change (no e-mail, so never ready to complete; out of the id pool), with a
  // variant item and a custom one: its items always exist, whatever the fuzzed completes and deletes did.
  const editable = (await data('POST', '/v1/draft-orders', { currency: product.currency ?? 'USD' })).id;
  const editableItems: string[] = (
    await data('POST', `/v1/draft-orders/${editable}/items`, {
      items: [
        { variant_id: variant, quantity: 1 },
        { title: 'Fuzz Gift Wrap', unit_price: 500, quantity: 1 },
      ],
    })
  ).map((item: { id: string }) => item.id);

  const owners = { product: product.id, variant, collection, customer: member, order };
  const protectedIds = [
    webhook.id,
    ...locations,
    product.id,
    variant,
    collection,
    member,
    group,
    zone,
    editable,
    ...editableItems,
  ];
  const definitions = {} as Record<OwnerType, string[]>;
  for (const owner_type of Object.keys(OWNERS) as OwnerType[]) {
    for (const d of DEFINITIONS)
      protectedIds.push(
        (
          await data('POST', '/v1/store/metafields', {
            label: d.slug,
            slug: d.slug,
            owner_type,
            value_type: d.value_type,
          })
        ).id,
      );
    // All the active ones (the demo catalog may have made some too).
    definitions[owner_type] = (await data('GET', `/v1/store/metafields?owner_type=${owner_type}`)).map(
      (d: { id: string }) => d.id,
    );
  }

  const deliveries = (await call('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=1`, secret)).data;
  if (!deliveries.length) throw new Error('fuzz setup: the fixture subscription recorded no delivery');

  const reset = { email: 'fuzz-reset@example.com', token: '' };
  await call(
    'POST',
    '/v1/auth/register',
    publishable,
    { email: reset.email, password: 'Fuzz-Reset-Passw0rd', first_name: 'Fuzz', last_name: 'Reset' },
    'X-API-Key',
  );
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
    editableDraft: { id: editable, items: editableItems },
    draftItems,
    closedDrafts: new Set([completed]),
    goneItems: new Set(),
    zone,
    rates,
    goneRates: new Set(),
    goneZones: new Set(),
    definitions,
    refreshTokens: [],
    reset,
  };
  await requestReset(call, keys, projectId, fixtures);
  return fixtures;
}

/** A new password-reset e-mail for the reset customer; its token becomes the one the hints send. */
export async function requestReset(
  call: SetupCall,
  keys: { publishable: string; platform: string },
  projectId: string,
  fixtures: Fixtures,
): Promise<void> {
  await call('POST', '/v1/auth/forgot-password', keys.publishable, { email: fixtures.reset.email }, 'X-API-Key');
  const outbox = await call(
    'GET',
    `/platform/v1/projects/${projectId}/outbox?to=${encodeURIComponent(fixtures.reset.email)}&limit=1`,
    keys.platform,
  );
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
    const id = typeof v.id === 'string' ? v.id : '';
    if (id.startsWith('dord_')) {
      if (v.status === 'completed') closeDraft(fixtures, id);
      else if (!fixtures.closedDrafts.has(id)) {
        // Open or sent: complete and send need an e-mail and a line; with expand=items the answer lists them all.
        if (
          typeof v.customer_email === 'string' &&
          typeof v.item_count === 'number' &&
          v.item_count > 0 &&
          !fixtures.readyDrafts.includes(id)
        ) {
          fixtures.readyDrafts.push(id);
          if (fixtures.readyDrafts.length > 50) fixtures.readyDrafts.shift();
        }
        if (Array.isArray(v.items))
          setDraftItems(
            fixtures,
            id,
            v.items.map((item: { id: string }) => item.id),
          );
      }
    }
    if (
      id.startsWith('doli_') &&
      typeof v.draft_order_id === 'string' &&
      !fixtures.closedDrafts.has(v.draft_order_id) &&
      !fixtures.goneItems.has(id)
    ) {
      const items = fixtures.draftItems.get(v.draft_order_id) ?? [];
      if (!items.includes(id)) setDraftItems(fixtures, v.draft_order_id, [...items, id]);
    }
    if (
      id.startsWith('shr_') &&
      typeof v.zone_id === 'string' &&
      !fixtures.goneRates.has(id) &&
      !fixtures.goneZones.has(v.zone_id) &&
      !fixtures.rates.has(id)
    ) {
      fixtures.rates.set(id, v.zone_id);
      if (fixtures.rates.size > 100) fixtures.rates.delete(fixtures.rates.keys().next().value!);
    }
    for (const item of Object.values(v)) if (item && typeof item === 'object') harvestFixtures(fixtures, item);
  }
}

/** How many shipping rates the hints keep alive (a new one in the fixture zone when fewer exist). */
const MIN_RATES = 2;

function setDraftItems(f: Fixtures, draft: string, items: string[]): void {
  const live = items.filter((item) => !f.goneItems.has(item));
  f.draftItems.delete(draft);
  if (live.length) f.draftItems.set(draft, live);
  if (f.draftItems.size > 50) f.draftItems.delete(f.draftItems.keys().next().value!);
}

/** A draft completed or deleted: it cannot change any more, nor be completed or sent. */
function closeDraft(f: Fixtures, draft: string): void {
  f.closedDrafts.add(draft);
  f.draftItems.delete(draft);
  const i = f.readyDrafts.indexOf(draft);
  if (i >= 0) f.readyDrafts.splice(i, 1);
}

function removeRate(f: Fixtures, rate: string): void {
  f.goneRates.add(rate);
  f.rates.delete(rate);
}

/**
 * What an answer of one operation (to a request routed to it, with these path parameters) tells the fixtures
 * beyond the resources it shows: drafts completed or deleted, items and rates deleted (also those a 404 shows
 * gone), and the definitions of an owner type after a change (read again: an archive answers no body). Keeps
 * MIN_RATES shipping rates alive in the fixture zone.
 */
export async function followAnswer(
  call: SetupCall,
  secret: string,
  f: Fixtures,
  operationId: string,
  path: Record<string, string>,
  status: number,
  body: unknown,
): Promise<void> {
  const ok = status < 300;
  switch (operationId) {
    case 'completeDraftOrder':
    case 'deleteDraftOrder':
      if (ok) closeDraft(f, path.id);
      break;
    case 'updateDraftOrderItem':
    case 'deleteDraftOrderItem':
      if ((ok && operationId === 'deleteDraftOrderItem') || status === 404) {
        f.goneItems.add(path.item_id);
        const items = f.draftItems.get(path.id);
        if (items) setDraftItems(f, path.id, items);
      }
      if (status === 400 && /completed draft order/.test(JSON.stringify(body))) closeDraft(f, path.id);
      break;
    case 'deleteShippingRate':
    case 'updateShippingRate':
      if ((ok && operationId === 'deleteShippingRate') || status === 404) removeRate(f, path.id);
      break;
    case 'deleteShippingZone':
      if (ok) {
        f.goneZones.add(path.id);
        for (const [rate, zone] of f.rates) if (zone === path.id) removeRate(f, rate);
      }
      break;
    case 'createMetafieldDefinition':
    case 'updateMetafieldDefinition':
    case 'archiveMetafieldDefinition': {
      const ownerType = (
        ok && operationId === 'createMetafieldDefinition' ? (body as any)?.data?.owner_type : path.owner_type
      ) as OwnerType;
      if (ok && ownerType in OWNERS)
        f.definitions[ownerType] = (await call('GET', `/v1/store/metafields?owner_type=${ownerType}`, secret)).data.map(
          (d: { id: string }) => d.id,
        );
      break;
    }
    case 'reorderMetafieldDefinitions':
      if (ok) f.definitions[path.owner_type as OwnerType] = (body as any).data.map((d: { id: string }) => d.id);
      break;
  }
  while (f.rates.size < MIN_RATES) {
    const rate = (
      await call('POST', `/v1/shipping/zones/${f.zone}/rates`, secret, {
        name: 'Fuzz Rate',
        price: 990,
        currency: 'USD',
      })
    ).data;
    f.rates.set(rate.id, f.zone);
  }
}

/** One of the list's entries as it is when the value is drawn (the list changes as answers come). */
const pick = <T>(list: () => readonly T[], fallback: T): fc.Arbitrary<T> =>
  fc.nat().map((n) => (list().length ? list()[n % list().length] : fallback));

/**
 * Hints per operation id. `customer` is the signed-in storefront customer (its password changes when a
 * fuzzed password change succeeds); `ids` the id pool, for owners other than the fixtures.
 */
export function fixtureHints(
  f: Fixtures,
  context: SchemaContext,
  customer: { email: string; password: string },
  ids: IdPool,
): Record<string, Hint> {
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

  hints.addCollectionProducts = {
    path: fc.constant({ id: f.collection }),
    body: fc.constant({ product_ids: [f.product] }),
  };
  hints.removeCollectionProduct = { path: fc.constant({ id: f.collection, product_id: f.product }) };
  hints.addCustomerGroupMembers = {
    path: fc.constant({ id: f.group }),
    body: fc.constant({ customer_ids: [f.member] }),
  };
  hints.removeCustomerGroupMember = { path: fc.constant({ id: f.group, customer_id: f.member }) };

  const [a, b] = f.locations;
  hints.setInventoryLevel = {
    body: fc.record({
      variant_id: fc.constant(f.variant),
      location_id: fc.constantFrom(a, b),
      available: fc.integer({ min: 0, max: 1_000_000 }),
    }),
  };
  // Every level of the first location moves to the second (after the first transfer, none: still 200).
  hints.transferLocationInventory = { path: fc.constant({ id: a }), body: fc.constant({ destination_location_id: b }) };

  hints.retryWebhookDelivery = { path: fc.constant({ id: f.webhook, delivery_id: f.delivery }) };
  hints.completeDraftOrder = {
    path: pick(() => f.readyDrafts, 'dord_00000000000000000000000000').map((id) => ({ id })),
  };
  hints.sendDraftOrder = { path: hints.completeDraftOrder.path };
  // A line item of its own draft, of a draft that can still change; price and title only suit custom items.
  const draftItems = () =>
    [f.editableDraft, ...[...f.draftItems].map(([id, items]) => ({ id, items }))].flatMap(({ id, items }) =>
      items.map((item_id) => ({ id, item_id })),
    );
  hints.updateDraftOrderItem = {
    path: pick<Record<string, unknown>>(draftItems, {
      id: 'dord_00000000000000000000000000',
      item_id: 'doli_00000000000000000000000000',
    }),
    body: valid(schema('DraftLineItemUpdate'), context).map((body) => {
      // Small quantities: drafts that are ready stay within the fixture's stock for completeDraftOrder.
      const { unit_price: _price, title: _title, ...rest } = body as Record<string, unknown>;
      if (typeof rest.quantity === 'number') rest.quantity = 1 + (rest.quantity % 3);
      return Object.keys(rest).length ? rest : { quantity: 1 };
    }),
  };
  hints.deleteShippingRate = {
    path: pick(() => [...f.rates.keys()], 'shr_00000000000000000000000000').map((id) => ({ id })),
  };
  // Every active definition of the owner type, once each, in some order (path and body drawn together).
  hints.reorderMetafieldDefinitions = {
    request: fc.constantFrom(...(Object.keys(OWNERS) as OwnerType[])).chain((owner_type) => {
      const active = f.definitions[owner_type];
      return fc
        .shuffledSubarray(active, { minLength: active.length, maxLength: active.length })
        .map((order) => ({ path: { owner_type }, body: { order } }));
    }),
  };

  // Shipping: currencies that exist and bound pairs in order (min ≤ max), the rest from the schema.
  const ordered = (body: any) => {
    const out = { ...body };
    for (const pair of ['order_subtotal', 'order_weight', 'delivery_days']) {
      const [min, max] = [out[`min_${pair}`], out[`max_${pair}`]];
      if (typeof min === 'number' && typeof max === 'number' && min > max)
        [out[`min_${pair}`], out[`max_${pair}`]] = [max, min];
    }
    return out;
  };
  const currency = fc.constantFrom('USD', 'EUR', 'GBP', 'JPY');
  hints.createShippingRate = {
    body: fc
      .tuple(valid(schema('ShippingRateCreate'), context), currency)
      .map(([body, c]) => ordered({ ...(body as object), currency: c })),
  };
  hints.updateShippingRate = {
    body: fc.tuple(valid(schema('ShippingRateUpdate'), context), currency).map(([body, c]) => {
      // Bounds are checked against the stored rate as well: only complete pairs are sent.
      const out: any = { ...(body as object), ...('currency' in (body as object) ? { currency: c } : {}) };
      for (const pair of ['order_subtotal', 'order_weight', 'delivery_days'])
        if (`min_${pair}` in out !== `max_${pair}` in out) {
          delete out[`min_${pair}`];
          delete out[`max_${pair}`];
        }
      return ordered(out);
    }),
  };
  hints.lookupShippingRates = {
    body: fc
      .tuple(valid(schema('ShippingRateLookup'), context), fc.constantFrom('US', 'ca', 'DE', 'FR', 'JP'), currency)
      .map(([body, country, c]) => ({ ...(body as object), country, currency: c })),
  };

  // Merchandising: pin needs pin_position, boost and bury need score_multiplier.
  const merchandising = (body: any) => {
    const out = { ...body };
    if (out.action === 'pin' && typeof out.pin_position !== 'number') out.pin_position = 0;
    if ((out.action === 'boost' || out.action === 'bury') && typeof out.score_multiplier !== 'number')
      out.score_multiplier = 2;
    return out;
  };
  hints.createMerchandisingRule = {
    body: fc
      .tuple(
        valid(schema('MerchandisingRuleCreate'), context),
        fc.oneof(fc.constant(f.product), ids.arbitrary(['prod'])),
      )
      .map(([body, product_id]) => merchandising({ ...(body as object), product_id })),
  };

  // Customer auth: the signed-in customer's credentials, refresh tokens from answers, the newest reset token.
  hints.loginCustomer = { body: fc.nat().map(() => ({ email: customer.email, password: customer.password })) };
  hints.changeCurrentCustomerPassword = {
    body: goodPassword.map((new_password) => ({ current_password: customer.password, new_password })),
  };
  hints.refreshCustomerToken = {
    body: pick(() => f.refreshTokens, 'x'.repeat(43)).map((refresh_token) => ({ refresh_token })),
  };
  hints.resetPassword = { body: goodPassword.map((password) => ({ token: f.reset.token, password })) };
  return hints;
}
