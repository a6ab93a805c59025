import { describe, expect, test } from '@jest/globals';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

// Money filters are compared with 64-bit columns: a value past what the column holds failed in PostgreSQL (500).
// The contract bounds them (100,000,000,000 minor units, as every other money input), so it is a 400 naming the field.
const store = useStore();
const get = (path: string) =>
  fetch(`${store.app.baseUrl}${path}`, { headers: { Authorization: `Bearer ${store.keys.secret_test.token}` } });

describe('money filters past their bound', () => {
  test.each([
    ['/v1/customers', 'min_spent', '9223372036854775807'],
    ['/v1/customers', 'min_spent', '1e+25'],
    ['/v1/customers', 'min_spent', '100000000001'],
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
