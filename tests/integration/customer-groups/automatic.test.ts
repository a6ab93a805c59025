import { beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { createCustomer, type CustomerResource } from '../../factories/customer.factory.js';
import {
  createAutomaticGroup,
  memberIds,
  readGroup,
  type Condition,
  type GroupResource,
} from '../../factories/customer-group.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';
import { byId } from '../../setup/requests.js';

const store = useStore();

/** Everything a test of membership looks at: the customer list's group_id, member_count, expand=members and customer_id. */
async function membership(api: CommerceClient, group: GroupResource) {
  const listed = await memberIds(api, group.id);
  const read = (
    await api.GET('/v1/customer-groups/{id}', { params: { path: { id: group.id }, query: { expand: ['members'] } } })
  ).data!.data;
  expect(read.member_count).toBe(listed.length);
  expect(read.members!.map((m) => m.id).sort()).toEqual(listed.slice(0, 100));
  return listed;
}

async function inGroupByCustomerId(api: CommerceClient, customerId: string, groupId: string): Promise<boolean> {
  const { data } = await api.GET('/v1/customer-groups', { params: { query: { customer_id: customerId, limit: 250 } } });
  return data!.data.some((g) => g.id === groupId);
}

async function placeOrder(api: CommerceClient, customer: CustomerResource, amount: number) {
  const draft = await createDraftOrder(api, { customer_id: customer.id, customer_email: undefined });
  await addItems(api, draft.id, [{ title: 'Service', unit_price: amount, quantity: 1 }]);
  const { data, response } = await api.POST('/v1/draft-orders/{id}/complete', byId(draft.id));
  expect(response.status).toBe(201);
  return data!.data;
}

describe('the VIP group (total_spent more than 10000)', () => {
  test('gains a customer as soon as a paid order brings them over 10000; GET /v1/customers?group_id= lists them', async () => {
    const vip = await createAutomaticGroup(
      store.api,
      [{ field: 'total_spent', operator: 'more_than', value: 10000 }],
      'all',
    );
    const customer = await createCustomer(store.api, { first_name: 'Vera', last_name: 'Important' });
    const first = await placeOrder(store.api, customer, 6000);
    await store.api.POST('/v1/orders/{id}/pay', byId(first.id));
    expect(await membership(store.api, vip)).not.toContain(customer.id);

    const second = await placeOrder(store.api, customer, 5000);
    // Completed but unpaid: total_spent counts paid orders only.
    expect(await membership(store.api, vip)).not.toContain(customer.id);
    await store.api.POST('/v1/orders/{id}/pay', byId(second.id));
    expect(await membership(store.api, vip)).toContain(customer.id);
    expect(await inGroupByCustomerId(store.api, customer.id, vip.id)).toBe(true);

    const add = await store.api.POST('/v1/customer-groups/{id}/members', {
      params: { path: { id: vip.id } },
      body: { customer_ids: [customer.id] },
    });
    expect(add.response.status).toBe(400);
  });
});

describe('membership follows the customers, with no job', () => {
  test('created, updated, tagged, untagged, deleted', async () => {
    const group = await createAutomaticGroup(store.api, [
      { field: 'tag', operator: 'is_same_as', value: 'Follow-Me' },
      { field: 'status', operator: 'is_same_as', value: 'active' },
    ]);
    const customer = await createCustomer(store.api, { tags: ['follow-me'] });
    expect(await membership(store.api, group)).toEqual([customer.id]);
    await store.api.PATCH('/v1/customers/{id}', {
      params: { path: { id: customer.id } },
      body: { status: 'inactive' },
    });
    expect(await membership(store.api, group)).toEqual([]);
    expect(await inGroupByCustomerId(store.api, customer.id, group.id)).toBe(false);
    await store.api.PATCH('/v1/customers/{id}', {
      params: { path: { id: customer.id } },
      body: { status: 'active', tags: ['other'] },
    });
    expect(await membership(store.api, group)).toEqual([]);
    await store.api.PATCH('/v1/customers/{id}', {
      params: { path: { id: customer.id } },
      body: { tags: ['other', 'FOLLOW-ME'] },
    });
    expect(await membership(store.api, group)).toEqual([customer.id]);
    expect(await inGroupByCustomerId(store.api, customer.id, group.id)).toBe(true);
    await store.api.DELETE('/v1/customers/{id}', byId(customer.id));
    expect(await membership(store.api, group)).toEqual([]);
  });

  test('company and addresses (city, country) as they are added, changed and removed', async () => {
    const group = await createAutomaticGroup(
      store.api,
      [
        { field: 'city', operator: 'is_same_as', value: 'lyon' },
        { field: 'company', operator: 'is_same_as', value: 'Soie & Co' },
      ],
      'any',
    );
    const customer = await createCustomer(store.api);
    expect(await membership(store.api, group)).toEqual([]);
    const { data } = await store.api.POST('/v1/customers/{id}/addresses', {
      params: { path: { id: customer.id } },
      body: { line1: '1 Rue', city: 'Lyon', country: 'FR' },
    });
    expect(await membership(store.api, group)).toEqual([customer.id]);
    await store.api.PATCH('/v1/addresses/{id}', { params: { path: { id: data!.data.id } }, body: { city: 'Paris' } });
    expect(await membership(store.api, group)).toEqual([]);
    await store.api.PATCH('/v1/customers/{id}', {
      params: { path: { id: customer.id } },
      body: { company: 'SOIE & CO' },
    });
    expect(await membership(store.api, group)).toEqual([customer.id]);
    await store.api.PATCH('/v1/customers/{id}', { params: { path: { id: customer.id } }, body: { company: null } });
    expect(await membership(store.api, group)).toEqual([]);
    await store.api.PATCH('/v1/addresses/{id}', { params: { path: { id: data!.data.id } }, body: { city: 'LYON' } });
    expect(await membership(store.api, group)).toEqual([customer.id]);
    await store.api.DELETE('/v1/addresses/{id}', byId(data!.data.id));
    expect(await membership(store.api, group)).toEqual([]);
  });

  test('orders: order_count and the order dates move with each completed order, total_spent with each payment', async () => {
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const twoOrders = await createAutomaticGroup(store.api, [
      { field: 'order_count', operator: 'more_than', value: 1 },
    ]);
    const orderedToday = await createAutomaticGroup(store.api, [
      { field: 'last_order_date', operator: 'is_after', value: yesterday },
    ]);
    const firstBeforeTomorrow = await createAutomaticGroup(store.api, [
      { field: 'first_order_date', operator: 'is_before', value: '2999-01-01' },
    ]);
    const spent = await createAutomaticGroup(store.api, [{ field: 'total_spent', operator: 'more_than', value: 0 }]);
    const noOrders = await createAutomaticGroup(store.api, [{ field: 'order_count', operator: 'less_than', value: 1 }]);
    const customer = await createCustomer(store.api);
    expect(await memberIds(store.api, noOrders.id)).toContain(customer.id);
    for (const group of [twoOrders, orderedToday, firstBeforeTomorrow, spent])
      expect(await memberIds(store.api, group.id)).not.toContain(customer.id);

    const order = await placeOrder(store.api, customer, 100);
    expect(await memberIds(store.api, noOrders.id)).not.toContain(customer.id);
    expect(await memberIds(store.api, orderedToday.id)).toContain(customer.id);
    expect(await memberIds(store.api, firstBeforeTomorrow.id)).toContain(customer.id);
    expect(await memberIds(store.api, twoOrders.id)).not.toContain(customer.id);
    expect(await memberIds(store.api, spent.id)).not.toContain(customer.id);
    await placeOrder(store.api, customer, 100);
    expect(await memberIds(store.api, twoOrders.id)).toContain(customer.id);
    await store.api.POST('/v1/orders/{id}/pay', byId(order.id));
    expect(await memberIds(store.api, spent.id)).toContain(customer.id);
    expect(await inGroupByCustomerId(store.api, customer.id, spent.id)).toBe(true);
  });

  test('changing the conditions changes the members at once', async () => {
    const group = await createAutomaticGroup(store.api, [{ field: 'tag', operator: 'is_same_as', value: 'switch-a' }]);
    const a = await createCustomer(store.api, { tags: ['switch-a'] });
    const b = await createCustomer(store.api, { tags: ['switch-b'] });
    expect(await membership(store.api, group)).toEqual([a.id]);
    await store.api.PATCH('/v1/customer-groups/{id}', {
      params: { path: { id: group.id } },
      body: { conditions: [{ field: 'tag', operator: 'is_same_as', value: 'switch-b' }] },
    });
    expect(await membership(store.api, group)).toEqual([b.id]);
    await store.api.PATCH('/v1/customer-groups/{id}', {
      params: { path: { id: group.id } },
      body: {
        conditions: [
          { field: 'tag', operator: 'is_same_as', value: 'switch-a' },
          { field: 'tag', operator: 'is_same_as', value: 'switch-b' },
        ],
        condition_match: 'any',
      },
    });
    expect(await membership(store.api, group)).toEqual([a.id, b.id].sort());
  });
});

describe('every field, operator and kind, any vs all (database filter and in-memory evaluation agree)', () => {
  let api: CommerceClient;
  const people: Record<string, string> = {};

  interface Facts {
    tags?: string[];
    status?: 'active' | 'inactive';
    company?: string;
    cities?: Array<[string, string]>;
    totalSpent?: number;
    orderCount?: number;
    firstOrderAt?: string;
    lastOrderAt?: string;
    createdAt: string;
  }
  const dataset: Record<string, Facts> = {
    ann: {
      tags: ['VIP', 'newsletter'],
      company: 'Acme GmbH',
      cities: [['Berlin', 'DE']],
      totalSpent: 50_000,
      orderCount: 5,
      firstOrderAt: '2026-01-10T10:00:00Z',
      lastOrderAt: '2026-11-01T08:00:00Z',
      createdAt: '2025-12-01T00:00:00Z',
    },
    bob: { status: 'inactive', createdAt: '2026-06-01T00:00:00Z' },
    cat: {
      tags: ['vip'],
      company: 'acme gmbh',
      cities: [
        ['Paris', 'FR'],
        ['Lyon', 'FR'],
      ],
      totalSpent: 10_000,
      orderCount: 1,
      firstOrderAt: '2026-10-31T23:59:59.999Z',
      lastOrderAt: '2026-10-31T23:59:59.999Z',
      createdAt: '2026-10-31T23:00:00Z',
    },
    dan: {
      tags: ['wholesale'],
      company: '100%_Cotton',
      cities: [['paris', 'FR']],
      totalSpent: 10_001,
      orderCount: 2,
      firstOrderAt: '2026-11-01T00:00:00Z',
      lastOrderAt: '2026-11-02T00:00:00Z',
      createdAt: '2026-11-01T00:00:00Z',
    },
    eve: {
      tags: ['Über'],
      status: 'inactive',
      company: 'Other',
      cities: [['Berlin', 'DE']],
      totalSpent: 9_999,
      orderCount: 3,
      firstOrderAt: '2025-05-05T12:00:00Z',
      lastOrderAt: '2026-05-05T12:00:00Z',
      createdAt: '2025-01-01T00:00:00Z',
    },
  };

  beforeAll(async () => {
    // A project of its own, so the expected member lists are exact.
    api = store.app.client((await createProject(store.app)).keys.secret_test.token);
    for (const [key, facts] of Object.entries(dataset)) {
      const customer = await createCustomer(api, {
        email: `${key}@kinds.example`,
        first_name: key,
        tags: facts.tags,
        status: facts.status,
        company: facts.company,
      });
      for (const [city, country] of facts.cities ?? []) {
        await api.POST('/v1/customers/{id}/addresses', {
          params: { path: { id: customer.id } },
          body: { line1: '1 Main St', city, country },
        });
      }
      await store.app.deps.db.customer.update({
        where: { id: customer.id },
        data: {
          totalSpent: facts.totalSpent ?? 0,
          orderCount: facts.orderCount ?? 0,
          createdAt: new Date(facts.createdAt),
          firstOrderAt: facts.firstOrderAt ? new Date(facts.firstOrderAt) : null,
          lastOrderAt: facts.lastOrderAt ? new Date(facts.lastOrderAt) : null,
        },
      });
      people[key] = customer.id;
    }
    // Never members: a deleted customer meeting every condition, and a customer of another project.
    const zed = await createCustomer(api, { tags: ['vip', 'wholesale'], company: 'Acme GmbH' });
    await store.app.deps.db.customer.update({ where: { id: zed.id }, data: { totalSpent: 1_000_000, orderCount: 50 } });
    await api.DELETE('/v1/customers/{id}', byId(zed.id));
    await createCustomer(store.api, { tags: ['vip'], company: 'Acme GmbH' });
  });

  const cases: Array<[string, Condition[], 'all' | 'any', string[]]> = [
    [
      'tag is_same_as (case-insensitive)',
      [{ field: 'tag', operator: 'is_same_as', value: 'vip' }],
      'all',
      ['ann', 'cat'],
    ],
    [
      'tag is_not (includes customers without tags)',
      [{ field: 'tag', operator: 'is_not', value: 'VIP' }],
      'all',
      ['bob', 'dan', 'eve'],
    ],
    ['tag with a non-ASCII letter', [{ field: 'tag', operator: 'is_same_as', value: 'über' }], 'all', ['eve']],
    ['status is_same_as', [{ field: 'status', operator: 'is_same_as', value: 'inactive' }], 'all', ['bob', 'eve']],
    ['status is_not', [{ field: 'status', operator: 'is_not', value: 'INACTIVE' }], 'all', ['ann', 'cat', 'dan']],
    [
      'company is_same_as (case-insensitive, whole name)',
      [{ field: 'company', operator: 'is_same_as', value: 'ACME GMBH' }],
      'all',
      ['ann', 'cat'],
    ],
    [
      'company is_not (includes customers without a company)',
      [{ field: 'company', operator: 'is_not', value: 'acme gmbh' }],
      'all',
      ['bob', 'dan', 'eve'],
    ],
    [
      'company with % and _ (literal)',
      [{ field: 'company', operator: 'is_same_as', value: '100%_cotton' }],
      'all',
      ['dan'],
    ],
    ['company % is not a wildcard', [{ field: 'company', operator: 'is_same_as', value: '100%' }], 'all', []],
    [
      'city is_same_as (any address)',
      [{ field: 'city', operator: 'is_same_as', value: 'PARIS' }],
      'all',
      ['cat', 'dan'],
    ],
    [
      'city is_not (no address there)',
      [{ field: 'city', operator: 'is_not', value: 'paris' }],
      'all',
      ['ann', 'bob', 'eve'],
    ],
    ['country is_same_as', [{ field: 'country', operator: 'is_same_as', value: 'de' }], 'all', ['ann', 'eve']],
    ['country is_not', [{ field: 'country', operator: 'is_not', value: 'FR' }], 'all', ['ann', 'bob', 'eve']],
    [
      'total_spent more_than (strict)',
      [{ field: 'total_spent', operator: 'more_than', value: 10_000 }],
      'all',
      ['ann', 'dan'],
    ],
    [
      'total_spent less_than (strict)',
      [{ field: 'total_spent', operator: 'less_than', value: 10_000 }],
      'all',
      ['bob', 'eve'],
    ],
    [
      'order_count more_than',
      [{ field: 'order_count', operator: 'more_than', value: 1 }],
      'all',
      ['ann', 'dan', 'eve'],
    ],
    ['order_count less_than', [{ field: 'order_count', operator: 'less_than', value: 1 }], 'all', ['bob']],
    [
      'first_order_date is_before (UTC date)',
      [{ field: 'first_order_date', operator: 'is_before', value: '2026-11-01' }],
      'all',
      ['ann', 'cat', 'eve'],
    ],
    [
      'first_order_date is_after (UTC date)',
      [{ field: 'first_order_date', operator: 'is_after', value: '2026-10-31' }],
      'all',
      ['dan'],
    ],
    [
      'last_order_date is_before',
      [{ field: 'last_order_date', operator: 'is_before', value: '2026-11-01' }],
      'all',
      ['cat', 'eve'],
    ],
    [
      'last_order_date is_after',
      [{ field: 'last_order_date', operator: 'is_after', value: '2026-11-01' }],
      'all',
      ['dan'],
    ],
    [
      'customer_added_date is_before',
      [{ field: 'customer_added_date', operator: 'is_before', value: '2026-01-01' }],
      'all',
      ['ann', 'eve'],
    ],
    [
      'customer_added_date is_after',
      [{ field: 'customer_added_date', operator: 'is_after', value: '2026-10-31' }],
      'all',
      ['dan'],
    ],
    [
      'any: one condition is enough',
      [
        { field: 'tag', operator: 'is_same_as', value: 'wholesale' },
        { field: 'status', operator: 'is_same_as', value: 'inactive' },
      ],
      'any',
      ['bob', 'dan', 'eve'],
    ],
    [
      'all: every condition',
      [
        { field: 'tag', operator: 'is_same_as', value: 'wholesale' },
        { field: 'status', operator: 'is_same_as', value: 'inactive' },
      ],
      'all',
      [],
    ],
    [
      'all: country and total_spent',
      [
        { field: 'country', operator: 'is_same_as', value: 'FR' },
        { field: 'total_spent', operator: 'more_than', value: 10_000 },
      ],
      'all',
      ['dan'],
    ],
    [
      'three conditions',
      [
        { field: 'total_spent', operator: 'more_than', value: 5_000 },
        { field: 'order_count', operator: 'more_than', value: 0 },
        { field: 'tag', operator: 'is_not', value: 'wholesale' },
      ],
      'all',
      ['ann', 'cat', 'eve'],
    ],
    [
      'any of negations',
      [
        { field: 'city', operator: 'is_not', value: 'berlin' },
        { field: 'company', operator: 'is_not', value: 'other' },
      ],
      'any',
      ['ann', 'bob', 'cat', 'dan'],
    ],
  ];

  test.each(cases)('%s', async (_name, conditions, match, expected) => {
    const group = await createAutomaticGroup(api, conditions, match);
    const expectedIds = expected.map((key) => people[key]).sort();
    expect(await membership(api, group)).toEqual(expectedIds);
    // customer_id decides automatic groups in memory: it must agree with the database filter for everyone.
    for (const [key, id] of Object.entries(people)) {
      expect([key, await inGroupByCustomerId(api, id, group.id)]).toEqual([key, expected.includes(key)]);
    }
  });

  test('member_count of every group in one list page', async () => {
    const page = (await api.GET('/v1/customer-groups', { params: { query: { limit: 250 } } })).data!.data;
    for (const group of page) expect(group.member_count).toBe((await readGroup(api, group.id)).member_count);
    expect(page.length).toBeGreaterThanOrEqual(cases.length);
  });
});

describe('text compares case-insensitively letter by letter, as the database folds case (İ, final Σ)', () => {
  // JavaScript lowercases İ to "i̇" (two code points) and a word-final Σ to ς; PostgreSQL's lower() folds each
  // letter alone (İ to i, Σ to σ). Both sides of a comparison must fold the same way.
  test.each<[string, Condition, { tags?: string[]; city?: string }]>([
    ['tag İndirim, tagged İndirim', { field: 'tag', operator: 'is_same_as', value: 'İndirim' }, { tags: ['İndirim'] }],
    ['tag ΟΔΟΣ, tagged ΟΔΟΣ', { field: 'tag', operator: 'is_same_as', value: 'ΟΔΟΣ' }, { tags: ['ΟΔΟΣ'] }],
    ['tag οδοσ, tagged ΟΔΟΣ', { field: 'tag', operator: 'is_same_as', value: 'οδοσ' }, { tags: ['ΟΔΟΣ'] }],
    ['city İzmir, an address in izmir', { field: 'city', operator: 'is_same_as', value: 'İzmir' }, { city: 'izmir' }],
  ])('%s: a member, in the database filter and in memory', async (_name, condition, facts) => {
    const api = store.app.client((await createProject(store.app)).keys.secret_test.token);
    const customer = await createCustomer(api, { tags: facts.tags });
    if (facts.city) {
      await api.POST('/v1/customers/{id}/addresses', {
        params: { path: { id: customer.id } },
        body: { line1: '1 Atatürk Cd.', city: facts.city, country: 'TR' },
      });
    }
    const group = await createAutomaticGroup(api, [condition]);
    expect(await membership(api, group)).toEqual([customer.id]);
    expect(await inGroupByCustomerId(api, customer.id, group.id)).toBe(true);
  });
});
