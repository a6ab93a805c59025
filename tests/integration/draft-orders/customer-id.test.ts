import { describe, expect, test } from '@jest/globals';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

// An empty customer_id used to skip the customer check: PATCH stored "" and every later answer broke the contract (found by the contract fuzz).
const store = useStore();
const call = (method: string, path: string, body?: unknown) => store.call(method, path, body);

describe('draft order customer_id', () => {
  test('updateDraftOrder: customer_id "" is 400 on customer_id and changes nothing', async () => {
    const draft = (await json(await call('POST', '/v1/draft-orders', { currency: 'EUR' }))).data;
    const response = await call('PATCH', `/v1/draft-orders/${draft.id}`, { customer_id: '' });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'customer_id' });
    expect((await json(await call('GET', `/v1/draft-orders/${draft.id}`))).data.customer_id).toBeNull();
  });

  test('createDraftOrder: customer_id "" is 400 on customer_id', async () => {
    const response = await call('POST', '/v1/draft-orders', { currency: 'EUR', customer_id: '' });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'customer_id' });
  });
});
