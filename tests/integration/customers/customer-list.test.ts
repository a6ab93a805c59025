import { beforeAll, describe, expect, test } from '@jest/globals';
import type { operations } from '@commerce-api/sdk';
import { createCustomer, type CustomerResource } from '../../factories/customer.factory.js';
import { useStore } from '../../setup/store.js';

type Query = NonNullable<operations['listCustomers']['parameters']['query']>;

const store = useStore();
const people: Record<string, CustomerResource> = {};

beforeAll(async () => {
  const rows: Array<[string, string, string, Partial<{ status: 'active' | 'inactive' }>]> = [
    ['ann', 'Ann', 'Zimmer', {}],
    ['bob', 'Bob', 'Young', { status: 'inactive' }],
    ['janet', 'Janet', 'Anders', {}],
    ['jane', 'Jane', 'Doe', {}],
    ['percent', 'Pat', '100%Cotton', {}],
    ['under', 'Uma', 'a_b', {}],
    ['doe2', 'John', 'Doe', {}],
  ];
  const totals: Record<string, { orderCount: number; totalSpent: bigint }> = {
    ann: { orderCount: 5, totalSpent: 50_000n },
    bob: { orderCount: 1, totalSpent: 1_500n },
    jane: { orderCount: 12, totalSpent: 990_000n },
  };
  // Explicit creation times a minute apart in the order above (all in the past, so customers that tests
  // create later are newer), instead of relying on the clock moving between requests.
  const base = Date.now() - 60 * 60_000;
  for (const [i, [key, first_name, last_name, extra]] of rows.entries()) {
    const created = await createCustomer(store.api, { first_name, last_name, email: `${key}@shop.example`, ...extra });
    const at = new Date(base + i * 60_000);
    await store.app.deps.db.customer.update({
      where: { id: created.id },
      data: { createdAt: at, updatedAt: at, ...totals[key] },
    });
    people[key] = { ...created, created_at: at.toISOString(), updated_at: at.toISOString() };
  }
});

const list = async (query: Query) => {
  const { data, error, response } = await store.api.GET('/v1/customers', { params: { query } });
  if (response.status !== 200) throw new Error(JSON.stringify(error));
  return data!;
};
const keysOf = async (query: Query) => {
  const idToKey = new Map(Object.entries(people).map(([key, c]) => [c.id, key]));
  return (await list(query)).data.map((c) => idToKey.get(c.id));
};

describe('listCustomers filters', () => {
  test('without filters: every customer, newest first, with total', async () => {
    const page = await list({});
    expect(page.pagination.total).toBe(7);
    expect(await keysOf({})).toEqual(['doe2', 'under', 'percent', 'jane', 'janet', 'bob', 'ann']);
    expect(await keysOf({ order: 'asc' })).toEqual(['ann', 'bob', 'janet', 'jane', 'percent', 'under', 'doe2']);
  });

  test('email matches exactly, ignoring case', async () => {
    expect(await keysOf({ email: 'JANE@shop.example' })).toEqual(['jane']);
    expect(await keysOf({ email: 'jane@shop' })).toEqual([]);
  });

  test('search is a case-insensitive substring of first name, last name or email', async () => {
    expect(await keysOf({ search: 'JAN', order: 'asc' })).toEqual(['janet', 'jane']);
    expect(await keysOf({ search: 'doe', order: 'asc' })).toEqual(['jane', 'doe2']);
    expect(await keysOf({ search: 'bob@shop' })).toEqual(['bob']);
    expect(await keysOf({ search: 'ANDERS' })).toEqual(['janet']);
  });

  test('search with several words needs every word: "jane doe" finds Jane Doe only', async () => {
    expect(await keysOf({ search: 'jane doe' })).toEqual(['jane']);
  });

  test('% and _ in a search are literal characters, not wildcards', async () => {
    expect(await keysOf({ search: '100%' })).toEqual(['percent']);
    expect(await keysOf({ search: 'a_b' })).toEqual(['under']);
    expect(await keysOf({ search: '%' })).toEqual(['percent']);
  });

  test('status, created_after, min_orders, max_orders and min_spent', async () => {
    expect(await keysOf({ status: 'inactive' })).toEqual(['bob']);
    expect(await keysOf({ created_after: people.percent.created_at, order: 'asc' })).toEqual(['under', 'doe2']);
    expect(await keysOf({ min_orders: 5, order: 'asc' })).toEqual(['ann', 'jane']);
    expect(await keysOf({ max_orders: 1, min_orders: 1 })).toEqual(['bob']);
    expect(await keysOf({ min_spent: 50_000, order: 'asc' })).toEqual(['ann', 'jane']);
    expect((await list({ min_spent: 50_000 })).pagination.total).toBe(2);
    expect(await keysOf({ min_orders: 1, status: 'active', search: 'an', order: 'asc' })).toEqual(['ann', 'jane']);
  });

  test('order_count and total_spent are reported from the stored totals', async () => {
    const [jane] = (await list({ email: 'jane@shop.example' })).data;
    expect(jane).toMatchObject({ order_count: 12, total_spent: 990_000 });
  });

  test('invalid filter values answer 400 naming the parameter', async () => {
    for (const [query, field] of [
      [{ status: 'gone' }, 'status'],
      [{ created_after: 'yesterday' }, 'created_after'],
      [{ min_orders: -1 }, 'min_orders'],
      [{ limit: 101 }, 'limit'],
      [{ sort: 'email' }, 'sort'],
      [{ search: 's'.repeat(201) }, 'search'],
    ] as const) {
      const { error, response } = await store.api.GET('/v1/customers', { params: { query: query as never } });
      expect(response.status).toBe(400);
      expect(error!.error.field).toBe(field);
    }
  });
});

describe('listCustomers sorting', () => {
  test('name sorts by last name, then first name, ignoring case', async () => {
    // 100%cotton < a_b < anders < doe (jane < john) < young < zimmer
    expect(await keysOf({ sort: 'name', order: 'asc' })).toEqual([
      'percent',
      'under',
      'janet',
      'jane',
      'doe2',
      'bob',
      'ann',
    ]);
  });

  test('updated_at puts the last updated first', async () => {
    await store.api.PATCH('/v1/customers/{id}', {
      params: { path: { id: people.bob.id } },
      body: { company: 'Bobco' },
    });
    expect((await keysOf({ sort: 'updated_at' }))[0]).toBe('bob');
  });

  test('relevance ranks exact names, then prefixes, then substrings; newest first within a rank', async () => {
    await createCustomer(store.api, { first_name: 'Doe', last_name: 'Ray', email: 'ray@shop.example' });
    await createCustomer(store.api, { first_name: 'Mel', last_name: 'Doerr', email: 'mel@shop.example' });
    await createCustomer(store.api, { first_name: 'Sid', last_name: 'Undoe', email: 'sid@shop.example' });
    const names = (await list({ search: 'doe', sort: 'relevance' })).data.map((c) => `${c.first_name} ${c.last_name}`);
    expect(names).toEqual(['Doe Ray', 'John Doe', 'Jane Doe', 'Mel Doerr', 'Sid Undoe']);
  });

  test('relevance puts an exact email before prefix and substring matches', async () => {
    await createCustomer(store.api, { first_name: 'Jo', last_name: 'Ann', email: 'joann@mail.example' });
    await createCustomer(store.api, { first_name: 'An', last_name: 'Org', email: 'ann@mail.example.org' });
    await createCustomer(store.api, { first_name: 'Ann', last_name: 'Exact', email: 'ann@mail.example' });
    const emails = (await list({ search: 'ann@mail.example', sort: 'relevance' })).data.map((c) => c.email);
    expect(emails).toEqual(['ann@mail.example', 'ann@mail.example.org', 'joann@mail.example']);
  });

  test('relevance: % in a search is literal in the exact-name rank too', async () => {
    await createCustomer(store.api, { first_name: 'Exa', last_name: '%Cotton', email: 'exa@shop.example' });
    await createCustomer(store.api, { first_name: 'Sub', last_name: '9%Cotton', email: 'sub@shop.example' });
    const names = (await list({ search: '%cotton', sort: 'relevance' })).data.map((c) => c.last_name);
    // "%Cotton" is the exact name; "9%Cotton" and "100%Cotton" only contain it (newest first).
    expect(names).toEqual(['%Cotton', '9%Cotton', '100%Cotton']);
  });

  test('relevance without search falls back to created_at', async () => {
    expect(await keysOf({ sort: 'relevance', order: 'asc' })).toEqual(
      await keysOf({ sort: 'created_at', order: 'asc' }),
    );
  });

  test('relevance pages walk every match once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list({ search: 'o', sort: 'relevance', limit: 2, cursor });
      seen.push(...page.data.map((c) => c.id));
      cursor = page.pagination.cursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe((await list({ search: 'o' })).pagination.total);
  });
});

describe('listCustomers pagination', () => {
  test.each(['created_at', 'updated_at', 'name'] as const)(
    'sort=%s walks every customer once, in order, in both directions',
    async (sort) => {
      for (const order of ['asc', 'desc'] as const) {
        const all = (await list({ sort, order, limit: 100 })).data.map((c) => c.id);
        const walked: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await list({ sort, order, limit: 3, cursor });
          walked.push(...page.data.map((c) => c.id));
          cursor = page.pagination.cursor ?? undefined;
        } while (cursor);
        expect(walked).toEqual(all);
      }
    },
  );

  test('a cursor of one sort used with another answers 400 with field cursor', async () => {
    const page = await list({ sort: 'name', limit: 2 });
    const { error } = await store.api.GET('/v1/customers', {
      params: { query: { cursor: page.pagination.cursor!, sort: 'created_at' } },
    });
    expect(error!.error.field).toBe('cursor');
  });

  test('fields applies to every customer of the page', async () => {
    const page = await list({ fields: ['email'], limit: 2 });
    for (const customer of page.data) expect(Object.keys(customer).sort()).toEqual(['email', 'id']);
  });
});

describe('listCustomers search in other scripts', () => {
  test('a name finds its customer whatever its case: Turkish İ and a word-final Greek Σ', async () => {
    const ilker = await createCustomer(store.api, { first_name: 'İlker', last_name: 'Yılmaz' });
    const nikos = await createCustomer(store.api, { first_name: 'ΝΙΚΟΣ', last_name: 'ΠΑΠΑΔΟΠΟΥΛΟΣ' });
    for (const [search, customer] of [
      ['İlker', ilker],
      ['ilker', ilker],
      ['İLKER yılmaz', ilker],
      ['ΝΙΚΟΣ', nikos],
      ['νικοσ', nikos],
      ['ΝΙΚΟΣ ΠΑΠΑΔΟΠΟΥΛΟΣ', nikos],
    ] as const) {
      for (const sort of ['created_at', 'relevance'] as const) {
        expect([search, sort, (await list({ search, sort })).data.map((c) => c.id)]).toEqual([
          search,
          sort,
          [customer.id],
        ]);
      }
    }
  });
});
