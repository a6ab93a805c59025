import { describe, expect, test } from '@jest/globals';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

// Variant prices, positions, stock thresholds and file sizes are stored as 32-bit integers; the contract
// declares limits within that range, so larger values answer 400 instead of failing in PostgreSQL (found by the contract fuzz).
const store = useStore();
const post = (path: string, body: unknown) =>
  fetch(`${store.app.baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${store.keys.secret_test.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('integer limits of catalog fields', () => {
  test.each([
    ['price', { title: 'S', price: 2_147_483_648 }],
    ['sale_price', { title: 'S', price: 100, sale_price: 2_147_483_648 }],
    ['position', { title: 'S', price: 100, position: 2_147_483_648 }],
    ['low_stock_threshold', { title: 'S', price: 100, low_stock_threshold: 2 ** 53 - 1 }],
  ])('createProduct: a variant %s beyond the declared maximum is 400 naming it', async (field, variant) => {
    const response = await post('/v1/products', { title: 'Big', variants: [variant] });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: `variants[0].${field}` });
  });

  test('createProduct: the largest declared variant price is stored and read back', async () => {
    const response = await post('/v1/products', {
      title: 'Dear',
      variants: [{ title: 'S', price: 1_000_000_000, position: 1_000_000_000, low_stock_threshold: 1_000_000_000 }],
    });
    expect(response.status).toBe(201);
    expect((await json(response)).data.variants[0]).toMatchObject({ price: 1_000_000_000, position: 1_000_000_000 });
  });

  test('createFile: a size beyond 2 GiB is 400 naming size; the maximum itself is stored', async () => {
    const file = { filename: 'big.bin', mime_type: 'application/octet-stream', url: 'https://cdn.example.com/big.bin' };
    const tooBig = await post('/v1/files', { ...file, size: 2_147_483_648 });
    expect(tooBig.status).toBe(400);
    expect((await json(tooBig)).error).toMatchObject({ code: 'invalid_request', field: 'size' });
    expect((await post('/v1/files', { ...file, size: 2_147_483_647 })).status).toBe(201);
  });
});

describe('integer limits of list filters', () => {
  test.each(['min_orders', 'max_orders'])(
    'listCustomers: %s beyond 1,000,000,000 is 400 naming it (the count is a 32-bit column)',
    async (name) => {
      const response = await fetch(`${store.app.baseUrl}/v1/customers?${name}=2147483648`, {
        headers: { Authorization: `Bearer ${store.keys.secret_test.token}` },
      });
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: name });
    },
  );
});
