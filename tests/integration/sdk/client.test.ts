import { beforeAll, describe, expect, test } from '@jest/globals';
import {
  ApiError,
  createCommerceClient,
  createStorefrontClient,
  idempotencyHeader,
  unwrap,
  type CommerceClient,
  type Schema,
} from '@commerce-api/sdk';
import { createProject } from '../../factories/project.factory.js';
import { useStore } from '../../setup/store.js';

// The SDK as a third party uses it: imported by its package name, clients made from a base URL and a key.
const store = useStore();
let api: CommerceClient;
const emails: string[] = [];

beforeAll(async () => {
  api = createCommerceClient({ baseUrl: store.app.baseUrl, apiKey: store.keys.secret_test.token });
  for (let i = 0; i < 7; i += 1) {
    const { data } = await api.POST('/v1/customers', {
      body: { email: `walker${i}@sdk.example`, first_name: 'Walker', last_name: `No${i}` },
    });
    emails.push(data!.data.email);
  }
});

describe('paginate', () => {
  test('walks every page of a list with the same query, typed from the list item', async () => {
    const seen: Schema<'Customer'>[] = [];
    for await (const customer of api.paginate('/v1/customers', {
      query: { limit: 2, search: 'walker', sort: 'name', order: 'asc' },
    })) {
      seen.push(customer);
    }
    expect(seen.map((c) => c.email)).toEqual(emails);
    expect(seen.every((c) => c.created_at && c.status === 'active')).toBe(true);
  });

  test('with fields, items carry id and the named fields only (typed as sparse)', async () => {
    const seen = [];
    for await (const customer of api.paginate('/v1/customers', {
      query: { limit: 3, search: 'walker', fields: ['email'] },
    })) {
      const email: string | undefined = customer.email;
      seen.push({ id: customer.id, email });
      expect(Object.keys(customer).sort()).toEqual(['email', 'id']);
    }
    expect(seen).toHaveLength(7);
  });

  test('a failed page throws ApiError naming the parameter', async () => {
    const walk = async () => {
      for await (const customer of api.paginate('/v1/customers', { query: { limit: 500 } })) void customer;
    };
    await expect(walk()).rejects.toMatchObject({
      name: 'ApiError',
      status: 400,
      code: 'invalid_request',
      field: 'limit',
    });
  });
});

describe('unwrap and ApiError', () => {
  test('unwrap answers the success body', async () => {
    const body = await unwrap(api.GET('/v1/customers', { params: { query: { limit: 1 } } }));
    expect(body.pagination.total).toBeGreaterThanOrEqual(7);
  });

  test('an error answer is an ApiError with status, code, field, details and request id', async () => {
    const error = await unwrap(
      api.POST('/v1/customers', { body: { email: emails[0], first_name: 'Dup', last_name: 'Licate' } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError).toMatchObject({ status: 409, code: 'conflict', field: 'email' });
    expect(apiError.requestId).toMatch(/\S/);

    const several = (await unwrap(
      api.POST('/v1/customers', { body: { email: 'x', first_name: '', last_name: '' } }),
    ).catch((e: unknown) => e)) as ApiError;
    expect(several.code).toBe('validation_error');
    expect(several.details?.map((d) => d.field).sort()).toEqual(['email', 'first_name', 'last_name']);
  });

  test('ApiError.of gives the same error from a { data, error, response } result, and nothing for a 2xx', async () => {
    const result = await api.GET('/v1/customers', { params: { query: { limit: 500 } } });
    const error = ApiError.of(result);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', field: 'limit' });
    expect(error?.requestId).toBe(result.response.headers.get('X-Request-Id'));
    expect(ApiError.of(await api.GET('/v1/customers', { params: { query: { limit: 1 } } }))).toBeUndefined();
  });

  test('a refusal for the rate limit carries retryAfter from Retry-After', async () => {
    const limited = await createProject(store.app, {}, { rate_limit_per_minute: 1 });
    const client = createCommerceClient({ baseUrl: store.app.baseUrl, apiKey: limited.keys.secret_test.token });
    await client.GET('/v1/customers');
    const refused = (await unwrap(client.GET('/v1/customers')).catch((e: unknown) => e)) as ApiError;
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfter).toBeLessThanOrEqual(60);
  });

  test('a key the API refuses is 401 unauthorized', async () => {
    const stranger = createCommerceClient({ baseUrl: store.app.baseUrl, apiKey: `sk_test_${'0'.repeat(40)}` });
    await expect(unwrap(stranger.GET('/v1/customers'))).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });
});

describe('keys, tokens and idempotency', () => {
  test('idempotencyHeader: a retried create answers the stored result', async () => {
    const headers = idempotencyHeader();
    const body = { email: 'retry@sdk.example', first_name: 'Re', last_name: 'Try' };
    const first = await api.POST('/v1/customers', { body, params: { header: headers } });
    const again = await api.POST('/v1/customers', { body, params: { header: headers } });
    expect(again.data!.data.id).toBe(first.data!.data.id);
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
  });

  test('a storefront client sends the publishable key in X-API-Key; withAccessToken signs the customer in', async () => {
    const shop = createStorefrontClient({
      baseUrl: store.app.baseUrl,
      publishableKey: store.keys.publishable_test.token,
    });
    const session = await unwrap(
      shop.POST('/v1/auth/register', {
        body: { email: 'shopper@sdk.example', password: 'Winter-Trail-2026', first_name: 'Sam', last_name: 'Shopper' },
      }),
    );
    const me = await unwrap(shop.withAccessToken(session.data.access_token).GET('/v1/me'));
    expect(me.data.email).toBe('shopper@sdk.example');
    await expect(unwrap(shop.GET('/v1/me'))).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });
});
