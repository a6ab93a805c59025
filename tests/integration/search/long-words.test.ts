import { describe, expect, test } from '@jest/globals';
import { useStore } from '../../setup/store.js';

// levenshtein refuses arguments over 255 characters; typo correction leaves such words and terms out (found by the contract fuzz).
const store = useStore();
const call = (method: string, path: string, body?: unknown) => store.call(method, path, body);

describe('vocabulary words over 255 characters', () => {
  test('a product description with such a word: search and suggest for a similar word still answer 200', async () => {
    expect(
      (
        await call('POST', '/v1/products', {
          title: 'Shirt',
          description: `Linen ${'x'.repeat(300)}`,
          status: 'active',
          variants: [{ title: 'S', price: 100 }],
        })
      ).status,
    ).toBe(201);
    expect((await call('GET', '/v1/search?q=x')).status).toBe(200);
    expect((await call('GET', '/v1/search?q=xxxxxxxxxy')).status).toBe(200);
    expect((await call('GET', '/v1/search/suggest?q=xxxxxxxxxy')).status).toBe(200);
  });
});
