import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fullView } from '../../../codegen/sdk-view.js';
import { openapiJson } from '../../../src/generated/document.js';
import type { OpenApiDocument } from '../../../src/shared/openapi-ajv.js';
import { createCommerceClient, unwrap, type CommerceClient } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { addItems, createDraftOrder } from '../../factories/draft-order.factory.js';
import { startPrism, type Prism } from '../../setup/prism.js';
import { useStore } from '../../setup/store.js';

// Sparse fields are in the contract: lists and reads with `fields` go through Prism's validating proxy
// (`npm run contract-proxy`: `prism proxy openapi.yaml <server> --errors`), which answers 500 with the
// violations instead of any answer that breaks openapi.yaml. Every answer arrives unchanged: 0 violations.
const store = useStore();
let prism: Prism;
let viaProxy: CommerceClient;
const ids: Record<'customer' | 'product' | 'collection' | 'draft' | 'order' | 'event', string> = {} as never;

beforeAll(async () => {
  prism = await startPrism({ proxyTo: store.app.baseUrl });
  viaProxy = createCommerceClient({ baseUrl: prism.baseUrl, apiKey: store.keys.secret_test.token });
  const customer = await createCustomer(store.api, { first_name: 'Ada', last_name: 'Lovelace' });
  ids.customer = customer.id;
  await unwrap(
    store.api.POST('/v1/customers/{id}/addresses', {
      params: { path: { id: customer.id } },
      body: { line1: '12 Analytical Row', city: 'London', country: 'GB' },
    }),
  );
  ids.product = (await createProduct(store.api)).id;
  ids.collection = (await unwrap(store.api.POST('/v1/collections', { body: { title: 'Engines' } }))).data.id;
  const draft = await createDraftOrder(store.api);
  await addItems(store.api, draft.id, [{ title: 'Gift wrap', unit_price: 500, quantity: 1 }]);
  ids.draft = (await createDraftOrder(store.api)).id;
  ids.order = (
    await unwrap(store.api.POST('/v1/draft-orders/{id}/complete', { params: { path: { id: draft.id } } }))
  ).data.id;
  ids.event = (await unwrap(store.api.GET('/v1/events', { params: { query: { limit: 1 } } }))).data[0].id;
}, 90_000);
afterAll(async () => {
  await prism?.stop();
});

type Answer = { data?: unknown; error?: unknown; response: Response };

/**
 * The answer passed the proxy untouched: 2xx, no violation header, and `data` holds at least one object (an
 * empty list would prove nothing), each with exactly `id` and the named fields (every one the resource has).
 */
function expectSparse(answer: Answer, fields: string[]): void {
  expect({ status: answer.response.status, error: answer.error }).toEqual({ status: 200, error: undefined });
  expect(answer.response.headers.get('sl-violations')).toBeNull();
  const data = (answer.data as { data: unknown }).data;
  const objects = Array.isArray(data) ? data : [data];
  expect(objects.length).toBeGreaterThan(0);
  for (const object of objects) expect(Object.keys(object as object).sort()).toEqual(['id', ...fields].sort());
}

describe('answers with fields through the validating proxy', () => {
  test('lists', async () => {
    expectSparse(
      await viaProxy.GET('/v1/customers', { params: { query: { fields: ['email', 'last_name'], limit: 5 } } }),
      ['email', 'last_name'],
    );
    expectSparse(
      await viaProxy.GET('/v1/customers/{id}/addresses', {
        params: { path: { id: ids.customer }, query: { fields: ['city'] } },
      }),
      ['city'],
    );
    expectSparse(await viaProxy.GET('/v1/products', { params: { query: { fields: ['title'] } } }), ['title']);
    expectSparse(await viaProxy.GET('/v1/collections', { params: { query: { fields: ['handle'] } } }), ['handle']);
    expectSparse(await viaProxy.GET('/v1/locations', { params: { query: { fields: ['name'] } } }), ['name']);
    expectSparse(await viaProxy.GET('/v1/orders', { params: { query: { fields: ['total'] } } }), ['total']);
    expectSparse(await viaProxy.GET('/v1/draft-orders', { params: { query: { fields: ['status'] } } }), ['status']);
    expectSparse(await viaProxy.GET('/v1/events', { params: { query: { fields: ['type'] } } }), ['type']);
  });

  test('reads', async () => {
    expectSparse(
      await viaProxy.GET('/v1/customers/{id}', {
        params: { path: { id: ids.customer }, query: { fields: ['email'] } },
      }),
      ['email'],
    );
    expectSparse(
      await viaProxy.GET('/v1/products/{id}', {
        params: { path: { id: ids.product }, query: { fields: ['title', 'variants'] } },
      }),
      ['title', 'variants'],
    );
    expectSparse(
      await viaProxy.GET('/v1/collections/{id}', {
        params: { path: { id: ids.collection }, query: { fields: ['title'] } },
      }),
      ['title'],
    );
    expectSparse(
      await viaProxy.GET('/v1/orders/{id}', {
        params: { path: { id: ids.order }, query: { fields: ['order_number', 'total'] } },
      }),
      ['order_number', 'total'],
    );
    expectSparse(
      await viaProxy.GET('/v1/draft-orders/{id}', {
        params: { path: { id: ids.draft }, query: { fields: ['total'] } },
      }),
      ['total'],
    );
    expectSparse(
      await viaProxy.GET('/v1/events/{id}', { params: { path: { id: ids.event }, query: { fields: ['summary'] } } }),
      ['summary'],
    );
  });

  test('only unknown names: id alone', async () => {
    expectSparse(
      await viaProxy.GET('/v1/customers/{id}', {
        params: { path: { id: ids.customer }, query: { fields: ['nonsense'] } },
      }),
      [],
    );
  });

  test('the same reads without fields pass too (whole objects)', async () => {
    const whole = await viaProxy.GET('/v1/customers/{id}', { params: { path: { id: ids.customer } } });
    expect(whole.response.status).toBe(200);
    expect(whole.response.headers.get('sl-violations')).toBeNull();
    expect(whole.data!.data.email).toMatch(/@/);
  });

  test('Prism logged no violation', () => {
    expect(prism.output()).not.toMatch(/violation/i);
  });
});

describe('control: the proxy does catch sparse answers', () => {
  test('against a document whose answers are whole objects only, the same read is a violation', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'whole-only-'));
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(fullView(JSON.parse(openapiJson) as OpenApiDocument)));
    const strict = await startPrism({ proxyTo: store.app.baseUrl }, file);
    try {
      const client = createCommerceClient({ baseUrl: strict.baseUrl, apiKey: store.keys.secret_test.token });
      const sparse = await client.GET('/v1/customers/{id}', {
        params: { path: { id: ids.customer }, query: { fields: ['email'] } },
      });
      expect(sparse.response.status).toBe(500);
      expect(JSON.stringify(sparse.error)).toMatch(/first_name/);
      const whole = await client.GET('/v1/customers/{id}', { params: { path: { id: ids.customer } } });
      expect(whole.response.status).toBe(200);
    } finally {
      await strict.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
