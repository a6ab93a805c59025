import { describe, expect, test } from '@jest/globals';
import { evaluate, stackingOrder, type Basket, type Rule } from '../../../src/modules/discounts/apply.js';

const NO_CONDITIONS: Rule['conditions'] = {
  min_subtotal: null,
  product_ids: [],
  collection_ids: [],
  product_types: [],
  customer_group_ids: [],
  customer_ids: [],
  currency: null,
};

const rule = (over: Omit<Partial<Rule>, 'conditions'> & { conditions?: Partial<Rule['conditions']> }): Rule => ({
  id: 'disc_1',
  source: 'code',
  code: 'SAVE',
  title: 'Save',
  type: 'percentage',
  value: 10,
  target: 'order',
  combinable: true,
  priority: 0,
  buyXGetY: null,
  tiers: [],
  ...over,
  conditions: { ...NO_CONDITIONS, ...over.conditions },
});

const basket = (over: Partial<Basket> = {}): Basket => ({
  currency: 'EUR',
  lines: [
    { productId: 'prod_shoe', productType: 'Shoes', collectionIds: ['col_run'], quantity: 2, unitPrice: 5000 },
    { productId: 'prod_sock', productType: 'Socks', collectionIds: [], quantity: 3, unitPrice: 999 },
  ],
  shippingCost: 490,
  customerId: null,
  customerGroupIds: [],
  ...over,
});

describe('evaluate: kinds', () => {
  test('percentage off the order is taken per line, rounded half-up', () => {
    const result = evaluate(basket(), [rule({ value: 15 })]);
    // 15 % of 10000 = 1500; of 2997 = 449.55 -> 450.
    expect(result.applications[0].lines).toEqual([
      { line_index: 0, amount: 1500 },
      { line_index: 1, amount: 450 },
    ]);
    expect(result.discount).toBe(1950);
  });

  test('fixed amount off the order is spread in proportion, leftovers to the largest line', () => {
    const result = evaluate(basket(), [rule({ type: 'fixed_amount', value: 1000 })]);
    // 1000 x 10000 / 12997 = 769.4 -> 769; 1000 x 2997 / 12997 = 230.6 -> 230; the leftover unit to line 0.
    expect(result.applications[0].lines).toEqual([
      { line_index: 0, amount: 770 },
      { line_index: 1, amount: 230 },
    ]);
  });

  test('fixed amount off matching lines takes the amount off each matching line, never below 0', () => {
    const result = evaluate(basket(), [
      rule({ type: 'fixed_amount', value: 5000, target: 'lines', conditions: { product_types: ['socks'] } }),
    ]);
    expect(result.applications[0].lines).toEqual([{ line_index: 1, amount: 2997 }]);
    expect(result.lineNet).toEqual([10000, 0]);
  });

  test('free shipping takes the shipping cost', () => {
    const result = evaluate(basket(), [rule({ type: 'free_shipping', value: 0 })]);
    expect(result.applications[0]).toMatchObject({ amount: 490, shipping_amount: 490, lines: [] });
    expect(result.shippingNet).toBe(0);
  });

  test('buy 2 get 1 free reduces the cheapest matching unit of each group of 3', () => {
    const deal = rule({
      source: 'promotion',
      code: null,
      type: 'buy_x_get_y',
      value: 0,
      buyXGetY: { buy_quantity: 2, get_quantity: 1, get_percentage: 100 },
    });
    // 5 units: one group of 3; the cheapest unit is a sock (999).
    expect(evaluate(basket(), [deal]).applications[0].lines).toEqual([{ line_index: 1, amount: 999 }]);
    const half = { ...deal, buyXGetY: { buy_quantity: 1, get_quantity: 1, get_percentage: 50 } };
    // 5 units: two groups of 2; the two cheapest units are socks: 499.5 -> 500 each.
    expect(evaluate(basket(), [half]).applications[0].lines).toEqual([{ line_index: 1, amount: 1000 }]);
  });

  test('tiered takes the highest tier the subtotal reaches; below every tier it does not apply', () => {
    const tiered = rule({
      source: 'promotion',
      code: null,
      type: 'tiered',
      value: 0,
      tiers: [
        { min_subtotal: 5000, type: 'fixed_amount', value: 500 },
        { min_subtotal: 10000, type: 'percentage', value: 10 },
        { min_subtotal: 50000, type: 'percentage', value: 20 },
      ],
    });
    expect(evaluate(basket(), [tiered]).discount).toBe(1000 + 300); // 10 % of 10000 and of 2997 (299.7 -> 300)
    const small = basket({ lines: [basket().lines[1]] });
    expect(evaluate(small, [tiered]).applications).toEqual([]);
  });
});

describe('evaluate: conditions', () => {
  test.each([
    ['min_subtotal', { min_subtotal: 20000 }, {}],
    ['products', { product_ids: ['prod_other'] }, {}],
    ['products', { collection_ids: ['col_other'] }, {}],
    ['currency', { currency: 'USD' }, {}],
    ['customer', { customer_ids: ['cus_a'] }, { customerId: 'cus_b' }],
    ['customer', { customer_group_ids: ['cg_vip'] }, { customerGroupIds: ['cg_other'] }],
  ] as Array<[string, Partial<Rule['conditions']>, Partial<Basket>]>)(
    'a code rejected for %s',
    (reason, conditions, over) => {
      const result = evaluate(basket(over), [rule({ conditions })]);
      expect(result.applications).toEqual([]);
      expect(result.rejected.map((r) => r.reason)).toEqual([reason]);
    },
  );

  test('conditions met: the named customer, a member of the group, a matching collection', () => {
    for (const [conditions, over] of [
      [{ customer_ids: ['cus_a'] }, { customerId: 'cus_a' }],
      [{ customer_group_ids: ['cg_vip'] }, { customerGroupIds: ['cg_vip'] }],
      [{ collection_ids: ['col_run'], min_subtotal: 12997 }, {}],
    ] as Array<[Partial<Rule['conditions']>, Partial<Basket>]>) {
      expect(evaluate(basket(over), [rule({ conditions })]).applications).toHaveLength(1);
    }
  });
});

describe('evaluate: stacking', () => {
  const promo = (id: string, priority: number, combinable = true) =>
    rule({ id, source: 'promotion', code: null, priority, combinable, type: 'fixed_amount', value: 100 });

  test('promotions by priority, highest first, then codes as applied', () => {
    const order = stackingOrder([promo('promo_b', 1), promo('promo_a', 5)], [rule({ id: 'disc_x' })]);
    expect(order.map((r) => r.id)).toEqual(['promo_a', 'promo_b', 'disc_x']);
  });

  test('each reduction applies to what the earlier ones left', () => {
    const result = evaluate(basket(), [promo('promo_a', 5), rule({ value: 10 })]);
    // 100 off spread first (77 / 23), then 10 % of 9923 (992.3 -> 992) and of 2974 (297.4 -> 297).
    expect(result.applications.map((a) => a.amount)).toEqual([100, 992 + 297]);
  });

  test('a code that is not combinable is rejected when a promotion applied first', () => {
    const result = evaluate(basket(), [promo('promo_a', 5), rule({ combinable: false })]);
    expect(result.applications.map((a) => a.rule.id)).toEqual(['promo_a']);
    expect(result.rejected.map((r) => r.reason)).toEqual(['not_combinable']);
  });

  test('a promotion that is not combinable, applied first, keeps every later one out', () => {
    const result = evaluate(basket(), [promo('promo_a', 5, false), promo('promo_b', 1), rule({})]);
    expect(result.applications.map((a) => a.rule.id)).toEqual(['promo_a']);
    expect(result.rejected.map((r) => r.rule.id)).toEqual(['disc_1']);
  });

  test('a promotion whose conditions fail is skipped silently; the next one applies', () => {
    const failing = { ...promo('promo_a', 5, false), conditions: { ...NO_CONDITIONS, min_subtotal: 999999 } };
    const result = evaluate(basket(), [failing, promo('promo_b', 1)]);
    expect(result.applications.map((a) => a.rule.id)).toEqual(['promo_b']);
    expect(result.rejected).toEqual([]);
  });
});
