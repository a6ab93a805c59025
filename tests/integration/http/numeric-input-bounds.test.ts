import { describe, expect, test } from '@jest/globals';
import { TEST_PLATFORM_TOKEN } from '../../setup/test-app.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

// Numbers reach 32-bit (int4) and 64-bit (bigint) columns, or are multiplied into them: a value past what the
// column holds failed in PostgreSQL (500). The contract bounds every numeric input within its column (money at
// 100,000,000,000 minor units), so such a value is a 400 naming the field.
const store = useStore();
const get = (path: string) =>
  fetch(`${store.app.baseUrl}${path}`, { headers: { Authorization: `Bearer ${store.keys.secret_test.token}` } });

describe('money filters past their bound', () => {
  test.each([
    ['/v1/customers', 'min_spent', '9223372036854775807'],
    ['/v1/customers', 'min_spent', '1e+25'],
    ['/v1/customers', 'min_spent', '100000000001'],
    ['/v1/customers', 'min_orders', '2147483648'],
    ['/v1/search?q=shirt', 'price_min', '9223372036854775807'],
    ['/v1/search?q=shirt', 'price_max', '1e+25'],
  ])('%s with %s=%s is 400 naming it', async (path, field, value) => {
    const response = await get(`${path}${path.includes('?') ? '&' : '?'}${field}=${value}`);
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field });
  });

  test('the bound itself is accepted', async () => {
    expect((await get('/v1/customers?min_spent=100000000000')).status).toBe(200);
    expect((await get('/v1/search?q=shirt&price_min=0&price_max=100000000000')).status).toBe(200);
  });
});

describe('automatic group conditions past their column', () => {
  const createGroup = (field: string, value: number) =>
    store.call('POST', '/v1/customer-groups', {
      name: `Past ${field} ${value}`,
      type: 'automatic',
      conditions: [{ field, operator: 'more_than', value }],
    });

  test.each([
    ['order_count', 2147483648],
    ['order_count', 9007199254740991],
    ['total_spent', 100000000001],
    ['total_spent', 1e25],
  ])('%s more_than %d is 400 naming conditions[0].value', async (field, value) => {
    const response = await createGroup(field, value);
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.field).toBe('conditions[0].value');
    expect(['invalid_request', 'validation_error']).toContain(error.code);
  });

  test('the largest value each column holds is accepted, and the group lists no one', async () => {
    for (const [field, value] of [
      ['order_count', 2147483647],
      ['total_spent', 100000000000],
    ] as const) {
      const response = await createGroup(field, value);
      expect(response.status).toBe(201);
      const { data } = await json(response);
      expect(data.member_count).toBe(0);
    }
  });
});

describe('exchange rates past what a price converted with them can hold', () => {
  const setRates = (rates: Record<string, number>) =>
    fetch(`${store.app.baseUrl}/platform/v1/projects/${store.project.id}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${TEST_PLATFORM_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ exchange_rates: rates }),
    });

  test('a rate above 1,000,000 is 400 naming it', async () => {
    const response = await setRates({ JPY: 1e300 });
    expect(response.status).toBe(400);
    expect((await json(response)).error.field).toBe('exchange_rates.JPY');
  });

  test('the largest rate converts the largest price without failing', async () => {
    expect((await setRates({ JPY: 1000000 })).status).toBe(200);
    const created = await store.call('POST', '/v1/products', {
      title: 'Costly widget',
      status: 'active',
      variants: [{ title: 'Default', price: 1000000000 }],
    });
    expect(created.status).toBe(201);
    const response = await get('/v1/search?q=costly&currency=JPY&facets=true');
    expect(response.status).toBe(200);
    const { data } = await json(response);
    // 1,000,000,000 cents of the project's USD at 1,000,000 yen to the dollar: 1e13 yen (JPY has no minor unit).
    expect(data.products.data).toEqual([expect.objectContaining({ title: 'Costly widget', price: 1e13 })]);
  });
});

describe('money amounts of discounts and promotions up to their bound', () => {
  // The contract bounds a fixed amount at 100,000,000,000 minor units, as every money input; the column was 32-bit,
  // so 2,147,483,648 and more failed in PostgreSQL (500, found by `npm run fuzz`).
  const fixedAmountCode = (code: string, value: number) =>
    store.call('POST', '/v1/discounts', { code, title: code, type: 'fixed_amount', value });

  test.each([
    ['/v1/discounts', { code: 'HUGE', title: 'Huge', type: 'fixed_amount', value: 100000000000 }],
    ['/v1/promotions', { title: 'Huge promotion', type: 'fixed_amount', value: 2147483648 }],
  ])('POST %s stores the amount and shows it again', async (path, body) => {
    const created = await store.call('POST', path, body);
    expect(created.status).toBe(201);
    const { data } = await json(created);
    expect(data.value).toBe(body.value);
    const { data: read } = await json(await get(`${path}/${data.id}`));
    expect(read.value).toBe(body.value);
  });

  test('PATCH raises a fixed amount to the bound', async () => {
    const { data } = await json(await fixedAmountCode('RAISED', 5));
    const updated = await store.call('PATCH', `/v1/discounts/${data.id}`, { value: 100000000000 });
    expect(updated.status).toBe(200);
    expect((await json(updated)).data.value).toBe(100000000000);
  });

  test('one past the bound is 400 naming value', async () => {
    const response = await fixedAmountCode('PAST', 100000000001);
    expect(response.status).toBe(400);
    expect((await json(response)).error.field).toBe('value');
  });
});
