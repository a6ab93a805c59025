/**
 * Every currency a client sends is an ISO 4217 code (openapi.yaml, `CurrencyCode`): three capitals that name no
 * currency (`ZZZ`) answer 400 `invalid_request` naming the field, and nothing is written, wherever the code is
 * stored: the project's, a draft order's, a checkout's, a discount's or a promotion's condition.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';
import { TEST_PLATFORM_TOKEN } from '../../setup/test-app.js';

const store = useStore();
const UNKNOWN = 'ZZZ';

function send(method: string, path: string, body: unknown, auth: Record<string, string>): Promise<Response> {
  return fetch(`${store.app.baseUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...auth },
    body: JSON.stringify(body),
  });
}
const secret = () => ({ Authorization: `Bearer ${store.keys.secret_test.token}` });
const publishable = () => ({ 'X-API-Key': store.keys.publishable_test.token });
const platform = { Authorization: `Bearer ${TEST_PLATFORM_TOKEN}` };

async function expectRefused(answer: Response, field: string): Promise<void> {
  const body = await json(answer);
  expect({ status: answer.status, error: body.error }).toMatchObject({
    status: 400,
    error: { code: 'invalid_request', field },
  });
  expect(body.error.message).toContain(UNKNOWN);
}

let draftId: string;
beforeAll(async () => {
  const created = await send('POST', '/v1/draft-orders', { currency: 'USD' }, secret());
  expect(created.status).toBe(201);
  draftId = (await json(created)).data.id;
});

describe('an unknown currency code is 400 naming it, and nothing is written', () => {
  test('createProject and updateProject', async () => {
    await expectRefused(
      await send('POST', '/platform/v1/projects', { name: 'Zed Store', currency: UNKNOWN }, platform),
      'currency',
    );
    expect(await store.app.deps.db.project.count({ where: { name: 'Zed Store' } })).toBe(0);
    await expectRefused(
      await send('PATCH', `/platform/v1/projects/${store.project.id}`, { currency: UNKNOWN }, platform),
      'currency',
    );
    await expectRefused(
      await send(
        'PATCH',
        `/platform/v1/projects/${store.project.id}`,
        { exchange_rates: { EUR: 0.9, ZZZ: 2 } },
        platform,
      ),
      'exchange_rates.ZZZ',
    );
    const project = await store.app.deps.db.project.findUniqueOrThrow({ where: { id: store.project.id } });
    expect(project.currency).toBe('USD');
    expect(project.exchangeRates).not.toHaveProperty('ZZZ');
  });

  test('createDraftOrder and updateDraftOrder', async () => {
    const before = await store.app.deps.db.draftOrder.count({ where: { projectId: store.project.id } });
    await expectRefused(await send('POST', '/v1/draft-orders', { currency: UNKNOWN }, secret()), 'currency');
    expect(await store.app.deps.db.draftOrder.count({ where: { projectId: store.project.id } })).toBe(before);
    await expectRefused(
      await send('PATCH', `/v1/draft-orders/${draftId}`, { currency: UNKNOWN }, secret()),
      'currency',
    );
    expect((await store.app.deps.db.draftOrder.findUniqueOrThrow({ where: { id: draftId } })).currency).toBe('USD');
  });

  test('createCheckout', async () => {
    const before = await store.app.deps.db.checkout.count({ where: { projectId: store.project.id } });
    await expectRefused(await send('POST', '/v1/checkouts', { currency: UNKNOWN }, publishable()), 'currency');
    expect(await store.app.deps.db.checkout.count({ where: { projectId: store.project.id } })).toBe(before);
  });

  test('createDiscount and createPromotion conditions', async () => {
    await expectRefused(
      await send(
        'POST',
        '/v1/discounts',
        { code: 'ZEDCODE', title: 'Zed', type: 'percentage', value: 10, conditions: { currency: UNKNOWN } },
        secret(),
      ),
      'conditions.currency',
    );
    await expectRefused(
      await send(
        'POST',
        '/v1/promotions',
        { title: 'Zed promotion', type: 'percentage', value: 10, conditions: { currency: UNKNOWN } },
        secret(),
      ),
      'conditions.currency',
    );
    expect(await store.app.deps.db.discount.count({ where: { projectId: store.project.id } })).toBe(0);
  });
});
