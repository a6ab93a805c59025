import { describe, expect, test } from '@jest/globals';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const get = (path: string) =>
  fetch(`${store.app.baseUrl}${path}`, { headers: { Authorization: `Bearer ${store.keys.secret_test.token}` } });

describe('unknown query parameters', () => {
  test('GET /v1/customers?q=ada is 400 invalid_request naming q and pointing at search', async () => {
    const response = await get('/v1/customers?q=ada');
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error).toMatchObject({ code: 'invalid_request', field: 'q' });
    expect(error.message).toContain('Did you mean search?');
  });

  test('an operation without query parameters refuses one too', async () => {
    const response = await get('/v1/customers/cus_01jd5p0a2c4e6g8j0l2n4q6s8u/notes?limit=5');
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'limit' });
  });

  test('an unknown parameter and an invalid one are reported together', async () => {
    const response = await get('/v1/customers?q=ada&limit=0');
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.code).toBe('validation_error');
    expect(error.details.map((d: { field: string }) => d.field).sort()).toEqual(['limit', 'q']);
  });

  test('the parameters an operation declares still work', async () => {
    expect((await get('/v1/customers?search=ada&limit=5&fields=id,email')).status).toBe(200);
  });
});
