import { describe, expect, test } from '@jest/globals';
import {
  conditionsWhere,
  dayStart,
  meetsConditions,
  validateConditions,
  type Condition,
  type CustomerFacts,
} from '../../../src/modules/customer-groups/conditions.js';

const customer = (facts: Partial<CustomerFacts> = {}): CustomerFacts => ({
  status: 'active',
  company: null,
  tags: [],
  addresses: [],
  totalSpent: 0n,
  orderCount: 0,
  firstOrderAt: null,
  lastOrderAt: null,
  createdAt: new Date('2026-06-15T12:00:00Z'),
  ...facts,
});

const valid = (conditions: Condition[]) => {
  const result = validateConditions(conditions);
  if ('problems' in result) throw new Error(JSON.stringify(result.problems));
  return result.conditions;
};
const problems = (conditions: Condition[]) => {
  const result = validateConditions(conditions);
  return 'problems' in result ? result.problems : [];
};
const meets = (facts: Partial<CustomerFacts>, conditions: Condition[], match: 'all' | 'any' = 'all') =>
  meetsConditions(customer(facts), valid(conditions), match);

describe('validateConditions', () => {
  test('each kind takes its own operators only, naming conditions[i].operator', () => {
    expect(problems([{ field: 'tag', operator: 'more_than', value: 'vip' }])).toEqual([
      {
        field: 'conditions[0].operator',
        message: 'conditions[0].operator must be is_same_as or is_not for tag (a text field).',
      },
    ]);
    expect(
      problems([
        { field: 'total_spent', operator: 'more_than', value: 1 },
        { field: 'order_count', operator: 'is_after', value: 1 },
        { field: 'last_order_date', operator: 'less_than', value: '2026-01-01' },
      ]).map((p) => p.field),
    ).toEqual(['conditions[1].operator', 'conditions[2].operator']);
    for (const [field, operators] of [
      ['tag', ['is_same_as', 'is_not']],
      ['status', ['is_same_as', 'is_not']],
      ['company', ['is_same_as', 'is_not']],
      ['city', ['is_same_as', 'is_not']],
      ['country', ['is_same_as', 'is_not']],
      ['total_spent', ['more_than', 'less_than']],
      ['order_count', ['more_than', 'less_than']],
      ['first_order_date', ['is_before', 'is_after']],
      ['last_order_date', ['is_before', 'is_after']],
      ['customer_added_date', ['is_before', 'is_after']],
    ] as const) {
      for (const operator of ['is_same_as', 'is_not', 'more_than', 'less_than', 'is_before', 'is_after'] as const) {
        const value =
          field === 'status'
            ? 'active'
            : field === 'country'
              ? 'DE'
              : field.endsWith('date')
                ? '2026-01-01'
                : field.startsWith('total') || field.startsWith('order')
                  ? 5
                  : 'x';
        const ok = (operators as readonly string[]).includes(operator);
        expect([field, operator, problems([{ field, operator, value }]).length === 0]).toEqual([field, operator, ok]);
      }
    }
  });

  test('numeric values are whole numbers of at least 0', () => {
    for (const value of ['10000', 10.5, -1, Number.MAX_SAFE_INTEGER + 2]) {
      expect(problems([{ field: 'total_spent', operator: 'more_than', value }])).toEqual([
        {
          field: 'conditions[0].value',
          message: 'conditions[0].value must be a whole number from 0 to 100000000000 for total_spent.',
        },
      ]);
    }
    expect(problems([{ field: 'order_count', operator: 'less_than', value: 0 }])).toEqual([]);
  });

  test('text and date values are strings; dates are real YYYY-MM-DD dates', () => {
    expect(problems([{ field: 'tag', operator: 'is_same_as', value: 5 }])[0].message).toBe(
      'conditions[0].value must be a string for tag.',
    );
    expect(problems([{ field: 'first_order_date', operator: 'is_before', value: 20260101 }])[0].field).toBe(
      'conditions[0].value',
    );
    for (const value of ['2026-02-30', '2026-1-01', '2026-01-01T00:00:00Z', 'yesterday', '']) {
      expect(problems([{ field: 'customer_added_date', operator: 'is_after', value }])).toEqual([
        {
          field: 'conditions[0].value',
          message: 'conditions[0].value must be an ISO 8601 date (YYYY-MM-DD) for customer_added_date.',
        },
      ]);
    }
    expect(problems([{ field: 'last_order_date', operator: 'is_after', value: '2024-02-29' }])).toEqual([]);
  });

  test('text values: not blank, within the field length; status is active or inactive; country is 2 letters', () => {
    expect(problems([{ field: 'company', operator: 'is_same_as', value: '  ' }])[0].message).toBe(
      'conditions[0].value must not be blank.',
    );
    expect(problems([{ field: 'tag', operator: 'is_same_as', value: 't'.repeat(101) }])[0].message).toBe(
      'conditions[0].value must be at most 100 characters long for tag.',
    );
    expect(problems([{ field: 'status', operator: 'is_same_as', value: 'gone' }])[0].message).toBe(
      'conditions[0].value must be active or inactive for status.',
    );
    expect(problems([{ field: 'country', operator: 'is_same_as', value: 'DEU' }])[0].field).toBe('conditions[0].value');
    expect(problems([{ field: 'country', operator: 'is_not', value: 'd1' }])[0].field).toBe('conditions[0].value');
  });

  test('normalizes status to lowercase and country to capitals; other values stay as sent', () => {
    expect(
      valid([
        { field: 'status', operator: 'is_same_as', value: 'INACTIVE' },
        { field: 'country', operator: 'is_not', value: 'de' },
        { field: 'tag', operator: 'is_same_as', value: 'VIP' },
      ]),
    ).toEqual([
      { field: 'status', operator: 'is_same_as', value: 'inactive' },
      { field: 'country', operator: 'is_not', value: 'DE' },
      { field: 'tag', operator: 'is_same_as', value: 'VIP' },
    ]);
  });

  test('reports every problem, each on its own field', () => {
    expect(
      problems([
        { field: 'tag', operator: 'is_same_as', value: 1 },
        { field: 'status', operator: 'is_same_as', value: 'active' },
        { field: 'city', operator: 'is_before', value: 'Paris' },
      ]).map((p) => p.field),
    ).toEqual(['conditions[0].value', 'conditions[2].operator']);
  });
});

describe('meetsConditions (in memory)', () => {
  test('tag: case-insensitive; is_not includes customers with no tags', () => {
    const tag = (operator: 'is_same_as' | 'is_not'): Condition[] => [{ field: 'tag', operator, value: 'VIP' }];
    expect(meets({ tags: ['newsletter', 'vip'] }, tag('is_same_as'))).toBe(true);
    expect(meets({ tags: ['Vip'] }, tag('is_same_as'))).toBe(true);
    expect(meets({ tags: ['vipx'] }, tag('is_same_as'))).toBe(false);
    expect(meets({ tags: [] }, tag('is_same_as'))).toBe(false);
    expect(meets({ tags: [] }, tag('is_not'))).toBe(true);
    expect(meets({ tags: ['other'] }, tag('is_not'))).toBe(true);
    expect(meets({ tags: ['vIp'] }, tag('is_not'))).toBe(false);
  });

  test('status, company: case-insensitive equality; is_not includes customers without a company', () => {
    expect(meets({ status: 'inactive' }, [{ field: 'status', operator: 'is_same_as', value: 'Inactive' }])).toBe(true);
    expect(meets({ status: 'active' }, [{ field: 'status', operator: 'is_not', value: 'inactive' }])).toBe(true);
    expect(meets({ company: 'ACME GmbH' }, [{ field: 'company', operator: 'is_same_as', value: 'acme gmbh' }])).toBe(
      true,
    );
    expect(meets({ company: 'ACME GmbH' }, [{ field: 'company', operator: 'is_same_as', value: 'acme' }])).toBe(false);
    expect(meets({ company: null }, [{ field: 'company', operator: 'is_same_as', value: 'acme' }])).toBe(false);
    expect(meets({ company: null }, [{ field: 'company', operator: 'is_not', value: 'acme' }])).toBe(true);
    expect(meets({ company: 'Acme' }, [{ field: 'company', operator: 'is_not', value: 'ACME' }])).toBe(false);
  });

  test('city and country: any address; is_not means no address with that value', () => {
    const addresses = [
      { city: 'Berlin', country: 'DE' },
      { city: 'Paris', country: 'FR' },
    ];
    expect(meets({ addresses }, [{ field: 'city', operator: 'is_same_as', value: 'paris' }])).toBe(true);
    expect(meets({ addresses }, [{ field: 'country', operator: 'is_same_as', value: 'de' }])).toBe(true);
    expect(meets({ addresses }, [{ field: 'country', operator: 'is_not', value: 'FR' }])).toBe(false);
    expect(meets({ addresses }, [{ field: 'country', operator: 'is_not', value: 'GB' }])).toBe(true);
    expect(meets({ addresses: [] }, [{ field: 'city', operator: 'is_same_as', value: 'Paris' }])).toBe(false);
    expect(meets({ addresses: [] }, [{ field: 'city', operator: 'is_not', value: 'Paris' }])).toBe(true);
  });

  test('numeric: more_than and less_than are strict', () => {
    expect(meets({ totalSpent: 10_001n }, [{ field: 'total_spent', operator: 'more_than', value: 10_000 }])).toBe(true);
    expect(meets({ totalSpent: 10_000n }, [{ field: 'total_spent', operator: 'more_than', value: 10_000 }])).toBe(
      false,
    );
    expect(meets({ orderCount: 2 }, [{ field: 'order_count', operator: 'less_than', value: 3 }])).toBe(true);
    expect(meets({ orderCount: 3 }, [{ field: 'order_count', operator: 'less_than', value: 3 }])).toBe(false);
    expect(meets({ orderCount: 0 }, [{ field: 'order_count', operator: 'less_than', value: 1 }])).toBe(true);
  });

  test('dates compare UTC calendar dates: is_before D ends at D 00:00Z, is_after D starts at D+1 00:00Z', () => {
    const before = [{ field: 'last_order_date', operator: 'is_before', value: '2026-11-01' }] as Condition[];
    const after = [{ field: 'last_order_date', operator: 'is_after', value: '2026-11-01' }] as Condition[];
    const at = (iso: string) => ({ lastOrderAt: new Date(iso) });
    expect(meets(at('2026-10-31T23:59:59.999Z'), before)).toBe(true);
    expect(meets(at('2026-11-01T00:00:00.000Z'), before)).toBe(false);
    expect(meets(at('2026-11-01T23:59:59.999Z'), after)).toBe(false);
    expect(meets(at('2026-11-02T00:00:00.000Z'), after)).toBe(true);
    // A customer without orders meets no order-date condition.
    expect(meets({ lastOrderAt: null }, before)).toBe(false);
    expect(meets({ lastOrderAt: null }, after)).toBe(false);
    expect(meets({}, [{ field: 'customer_added_date', operator: 'is_after', value: '2026-06-14' }])).toBe(true);
    expect(meets({}, [{ field: 'customer_added_date', operator: 'is_after', value: '2026-06-15' }])).toBe(false);
    expect(
      meets({ firstOrderAt: new Date('2026-01-05T10:00:00Z') }, [
        { field: 'first_order_date', operator: 'is_before', value: '2026-01-06' },
      ]),
    ).toBe(true);
  });

  test('all needs every condition, any needs one', () => {
    const conditions: Condition[] = [
      { field: 'total_spent', operator: 'more_than', value: 10_000 },
      { field: 'tag', operator: 'is_same_as', value: 'vip' },
    ];
    expect(meets({ totalSpent: 20_000n, tags: ['vip'] }, conditions, 'all')).toBe(true);
    expect(meets({ totalSpent: 20_000n }, conditions, 'all')).toBe(false);
    expect(meets({ totalSpent: 20_000n }, conditions, 'any')).toBe(true);
    expect(meets({ tags: ['VIP'] }, conditions, 'any')).toBe(true);
    expect(meets({}, conditions, 'any')).toBe(false);
  });
});

describe('conditionsWhere (the database filter)', () => {
  test('one filter per condition, joined by AND (all) or OR (any)', () => {
    const conditions = valid([
      { field: 'total_spent', operator: 'more_than', value: 10_000 },
      { field: 'order_count', operator: 'less_than', value: 3 },
      { field: 'tag', operator: 'is_same_as', value: 'VIP' },
      { field: 'status', operator: 'is_not', value: 'Inactive' },
      { field: 'country', operator: 'is_same_as', value: 'fr' },
    ]);
    const parts = [
      { totalSpent: { gt: 10_000 } },
      { orderCount: { lt: 3 } },
      { tagsNormalized: { has: 'vip' } },
      { NOT: { status: 'inactive' } },
      { addresses: { some: { country: 'FR' } } },
    ];
    expect(conditionsWhere(conditions, 'all')).toEqual({ AND: parts });
    expect(conditionsWhere(conditions, 'any')).toEqual({ OR: parts });
  });

  test('company and city compare as escaped case-insensitive equality; company is_not keeps customers without one', () => {
    const [company, city] = valid([
      { field: 'company', operator: 'is_not', value: '100%_Acme' },
      { field: 'city', operator: 'is_same_as', value: 'Paris' },
    ]);
    expect(conditionsWhere([company], 'all')).toEqual({
      AND: [
        { NOT: { AND: [{ company: { not: null } }, { company: { equals: '100\\%\\_Acme', mode: 'insensitive' } }] } },
      ],
    });
    expect(conditionsWhere([city], 'all')).toEqual({
      AND: [{ addresses: { some: { city: { equals: 'Paris', mode: 'insensitive' } } } }],
    });
  });

  test('dates become half-open UTC bounds', () => {
    const conditions = valid([
      { field: 'first_order_date', operator: 'is_before', value: '2026-11-01' },
      { field: 'customer_added_date', operator: 'is_after', value: '2026-12-31' },
    ]);
    expect(conditionsWhere(conditions, 'all')).toEqual({
      AND: [
        { firstOrderAt: { lt: new Date('2026-11-01T00:00:00Z') } },
        { createdAt: { gte: new Date('2027-01-01T00:00:00Z') } },
      ],
    });
  });
});

describe('dayStart', () => {
  test('UTC midnight of real dates only', () => {
    expect(dayStart('2026-03-01')).toEqual(new Date('2026-03-01T00:00:00Z'));
    expect(dayStart('2025-02-29')).toBeNull();
    expect(dayStart('2026-13-01')).toBeNull();
  });
});
