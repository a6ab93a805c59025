import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { badRequestFor } from '../../../codegen/bad-request-examples.js';
import { OWN_BAD_REQUEST } from '../../../codegen/declare-common-responses.js';
import { listOperations, type OperationSpec } from '../../../codegen/operations.js';
import { openapiJson } from '../../../src/generated/document.js';
import type { OpenApiDocument } from '../../../src/shared/openapi-ajv.js';
import { createProject } from '../../factories/project.factory.js';
import { startTestApp, TEST_METRICS_TOKEN, TEST_PLATFORM_TOKEN, type TestApp } from '../../setup/test-app.js';
import { useStore } from '../../setup/store.js';

// The mock answers the document's examples, so they must be what the server really says: for each shared
// error answer (components.responses), the real server is brought to say it and its body must equal the
// example, message included. Only request ids and numbers that vary between runs are normalized.
const document = JSON.parse(openapiJson) as {
  components: {
    responses: Record<
      string,
      { content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> }
    >;
  };
};
const store = useStore();
let noPlatform: TestApp;
let failing: TestApp;

beforeAll(async () => {
  noPlatform = await startTestApp({ config: { platformToken: undefined } });
  failing = await startTestApp({ handlers: { getHealth: () => Promise.reject(new Error('boom')) } });
});
afterAll(async () => {
  await noPlatform?.close();
  await failing?.close();
});

function example(response: string, name?: string): unknown {
  const content = document.components.responses[response]?.content?.['application/json'];
  if (!content) throw new Error(`components.responses.${response} has no JSON content`);
  return name
    ? content.examples?.[name]?.value
    : (content.example ?? (Object.values(content.examples ?? {}) as Array<{ value: unknown }>)[0]?.value);
}

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Request ids and (when asked) every number become placeholders. */
const normalize = (body: unknown, numbers = false) =>
  JSON.parse(
    JSON.stringify(body)
      .replace(uuid, '<uuid>')
      .replace(numbers ? /\d+/g : /$^/, 'N'),
  );

interface Call {
  method?: string;
  path: string;
  auth?: 'secret' | 'publishable' | 'platform' | 'metrics' | 'none';
  headers?: Record<string, string>;
  body?: unknown;
  app?: () => TestApp;
}

async function call({
  method = 'GET',
  path,
  auth = 'secret',
  headers = {},
  body,
  app = () => store.app,
}: Call): Promise<{ status: number; body: unknown }> {
  const token = {
    secret: store.keys.secret_test.token,
    publishable: store.keys.publishable_test.token,
    platform: TEST_PLATFORM_TOKEN,
    metrics: TEST_METRICS_TOKEN,
    none: undefined,
  }[auth];
  const response = await fetch(`${app().baseUrl}${path}`, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const customer = { email: 'taken@examples.test', first_name: 'Jane', last_name: 'Doe' };
const product = {
  title: 'Trail Runner 2',
  handle: 'trail-runner-2',
  variants: [{ title: 'Default', price: 12900, sku: 'TR2-42-BLK' }],
};

const scenarios: Array<{
  response: string;
  example?: string;
  status: number;
  numbers?: boolean;
  call: () => Promise<{ status: number; body: unknown }>;
}> = [
  { response: 'Unauthorized', status: 401, call: () => call({ path: '/v1/customers', auth: 'none' }) },
  {
    response: 'SecretKeyForbidden',
    example: 'forbidden',
    status: 403,
    call: () => call({ path: '/v1/customers', auth: 'publishable' }),
  },
  {
    response: 'PlatformUnauthorized',
    status: 401,
    call: () =>
      call({
        path: '/platform/v1/projects/proj_x',
        auth: 'none',
        headers: { Authorization: 'Bearer wrong-token-0123456789' },
      }),
  },
  {
    response: 'PlatformDisabled',
    status: 404,
    call: () =>
      call({ method: 'POST', path: '/platform/v1/projects', auth: 'none', body: { name: 'x' }, app: () => noPlatform }),
  },
  {
    response: 'ProjectNotFound',
    status: 404,
    call: () => call({ path: '/platform/v1/projects/proj_01jd5m3q7x9c2v4b6n8p0r1s2z', auth: 'platform' }),
  },
  { response: 'CustomerNotFound', status: 404, call: () => call({ path: '/v1/customers/cus_nope' }) },
  { response: 'AddressNotFound', status: 404, call: () => call({ method: 'DELETE', path: '/v1/addresses/addr_nope' }) },
  {
    response: 'EmailConflict',
    status: 409,
    call: () => call({ method: 'POST', path: '/v1/customers', body: customer }),
  },
  { response: 'ProductNotFound', status: 404, call: () => call({ path: '/v1/products/prod_nope' }) },
  { response: 'VariantNotFound', status: 404, call: () => call({ path: '/v1/variants/var_nope' }) },
  { response: 'LocationNotFound', status: 404, call: () => call({ path: '/v1/locations/loc_nope' }) },
  { response: 'CollectionNotFound', status: 404, call: () => call({ path: '/v1/collections/col_nope' }) },
  {
    response: 'CollectionConflict',
    status: 409,
    call: () => call({ method: 'POST', path: '/v1/collections', body: { title: 'Summer', handle: 'summer' } }),
  },
  {
    response: 'CatalogConflict',
    example: 'handle',
    status: 409,
    call: () => call({ method: 'POST', path: '/v1/products', body: product }),
  },
  {
    response: 'CatalogConflict',
    example: 'sku',
    status: 409,
    call: () => call({ method: 'POST', path: '/v1/products', body: { ...product, handle: 'other' } }),
  },
  {
    response: 'MetafieldDefinitionNotFound',
    status: 404,
    call: () => call({ method: 'PATCH', path: '/v1/store/metafields/product/nope', body: { label: 'Fabric' } }),
  },
  {
    response: 'PublishableKeyUnauthorized',
    status: 401,
    call: () =>
      call({ method: 'POST', path: '/v1/auth/login', auth: 'none', body: { email: 'a@b.co', password: 'x' } }),
  },
  {
    response: 'CustomerTokenUnauthorized',
    example: 'missing',
    status: 401,
    call: () => call({ path: '/v1/me', auth: 'none', headers: { 'X-API-Key': store.keys.publishable_test.token } }),
  },
  {
    response: 'CustomerTokenUnauthorized',
    example: 'invalid',
    status: 401,
    call: () =>
      call({
        path: '/v1/me',
        auth: 'none',
        headers: { 'X-API-Key': store.keys.publishable_test.token, Authorization: 'Bearer not.a.jwt' },
      }),
  },
  { response: 'InternalError', status: 500, call: () => call({ path: '/healthz', auth: 'none', app: () => failing }) },
  { response: 'DraftOrderNotFound', status: 404, call: () => call({ path: '/v1/draft-orders/dord_nope' }) },
  { response: 'OrderNotFound', status: 404, call: () => call({ path: '/v1/orders/ord_nope' }) },
  { response: 'ShippingZoneNotFound', status: 404, call: () => call({ path: '/v1/shipping/zones/shz_nope' }) },
  { response: 'CustomerGroupNotFound', status: 404, call: () => call({ path: '/v1/customer-groups/cgrp_nope' }) },
  { response: 'CompanyNotFound', status: 404, call: () => call({ path: '/v1/companies/comp_nope' }) },
  {
    response: 'PreconditionFailed',
    status: 412,
    call: async () => {
      const list = await call({ path: '/v1/customers?limit=1' });
      const id = (list.body as { data: Array<{ id: string }> }).data[0].id;
      const headers = { 'If-Match': '"an-old-version"' };
      return call({ method: 'PATCH', path: `/v1/customers/${id}`, headers, body: { first_name: 'Stale' } });
    },
  },
  {
    response: 'MerchandisingRuleNotFound',
    status: 404,
    call: () => call({ path: '/v1/search/merchandising/mrch_nope' }),
  },
];

describe('the error examples of openapi.yaml are what the server answers', () => {
  beforeAll(async () => {
    expect(await call({ method: 'POST', path: '/v1/customers', body: customer })).toMatchObject({ status: 201 });
    expect(
      await call({ method: 'POST', path: '/v1/collections', body: { title: 'Summer', handle: 'summer' } }),
    ).toMatchObject({ status: 201 });
    expect(await call({ method: 'POST', path: '/v1/products', body: product })).toMatchObject({ status: 201 });
  });

  test.each(scenarios.map((s) => [`${s.response}${s.example ? ` (${s.example})` : ''}`, s] as const))(
    '%s',
    async (_name, scenario) => {
      const answer = await scenario.call();
      expect(answer.status).toBe(scenario.status);
      expect(normalize(answer.body, scenario.numbers)).toEqual(
        normalize(example(scenario.response, scenario.example), scenario.numbers),
      );
    },
  );

  test('StoreDomainMissing and CustomerAuthBadRequest (domain): a project without a domain', async () => {
    const bare = await createProject(store.app, { domain: undefined, domain_verified: false });
    const response = await fetch(`${store.app.baseUrl}/v1/auth/login`, {
      method: 'POST',
      headers: { 'X-API-Key': bare.keys.publishable_test.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'a@b.co', password: 'x' }),
    });
    const body = await response.json();
    expect(response.status).toBe(400);
    expect(body).toEqual(example('StoreDomainMissing'));
    expect(body).toEqual(example('CustomerAuthBadRequest', 'domain'));
  });

  test('TooManyRequests (rate_limited): the project is over its per-minute limit', async () => {
    const limited = await createProject(store.app, {}, { rate_limit_per_minute: 1 });
    const get = () =>
      fetch(`${store.app.baseUrl}/v1/customers`, {
        headers: { Authorization: `Bearer ${limited.keys.secret_test.token}` },
      });
    expect((await get()).status).toBe(200);
    const refused = await get();
    expect(refused.status).toBe(429);
    const expected = example('TooManyRequests', 'rate_limited') as { error: { message: string } };
    expect(normalize(await refused.json(), true)).toEqual(normalize(expected, true));
  });

  test('IdempotencyConflict: one key with another body', async () => {
    const list = await call({ path: '/v1/customers?limit=1' });
    const id = (list.body as { data: Array<{ id: string }> }).data[0].id;
    const create = (city: string) =>
      call({
        method: 'POST',
        path: `/v1/customers/${id}/addresses`,
        headers: { 'Idempotency-Key': 'examples-1' },
        body: { line1: '1 Main St', city, country: 'DE' },
      });
    expect(await create('Berlin')).toMatchObject({ status: 201 });
    const again = await create('Hamburg');
    expect(again.status).toBe(409);
    expect(again.body).toEqual(example('IdempotencyConflict'));
  });

  test('PublishableKeyForbidden (domain_not_verified): a live publishable key before the domain is verified', async () => {
    const unverified = await createProject(store.app, { domain_verified: false });
    const response = await fetch(`${store.app.baseUrl}/v1/products`, {
      headers: { Authorization: `Bearer ${unverified.keys.publishable_live.token}` },
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual(example('PublishableKeyForbidden', 'domain_not_verified'));
  });

  test('SecretKeyForbidden (account_suspended): a suspended project', async () => {
    const suspended = await createProject(store.app);
    const patch = await store.app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: suspended.project.id } },
      body: { suspended: true },
    });
    expect(patch.response.status).toBe(200);
    const response = await fetch(`${store.app.baseUrl}/v1/customers`, {
      headers: { Authorization: `Bearer ${suspended.keys.secret_test.token}` },
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual(example('SecretKeyForbidden', 'account_suspended'));
  });
});

/** A path with each parameter filled by its example (or its schema's example or first enum value). */
function concretePath(op: OperationSpec): string {
  return op.path.replace(/\{(\w+)\}/g, (_all, name: string) => {
    const param = op.parameters.find((p) => p.in === 'path' && p.name === name) as
      { example?: string; schema: { example?: string; enum?: string[] } } | undefined;
    return encodeURIComponent(String(param?.example ?? param?.schema.example ?? param?.schema.enum?.[0] ?? 'x'));
  });
}

describe("each operation's own 400 example is what the server answers to the request it was made from", () => {
  const openapi = JSON.parse(openapiJson) as OpenApiDocument;
  const own = listOperations(openapi).filter(
    (op) =>
      (openapi.paths[op.path] as Record<string, { responses: Record<string, { description?: string }> }>)[op.method]
        .responses['400']?.description === OWN_BAD_REQUEST,
  );

  test('every operation with the shared 400 answer got its own', () => {
    expect(own.length).toBeGreaterThan(100);
    expect(own.map((op) => op.operationId)).toContain('createDraftOrder');
  });

  test.each(own.map((op) => [op.operationId, op] as const))('%s', async (_id, op) => {
    const bad = badRequestFor(openapi, op)!;
    const content = (openapi.paths[op.path] as Record<string, { responses: Record<string, any> }>)[op.method].responses[
      '400'
    ].content['application/json'];
    // One example, or several named ones whose first is the one made from this request (the others: other refusals).
    const named = Object.values<{ value: unknown }>(content.examples ?? {});
    const declared = (content.example ?? named[0]?.value) as unknown;
    expect(bad.answer).toEqual(declared);
    const query = new URLSearchParams(bad.query).toString();
    const auth = op.auth === 'publishable' ? 'none' : (op.auth as Call['auth']);
    const answer = await call({
      method: op.method.toUpperCase(),
      path: `${concretePath(op)}${query ? `?${query}` : ''}`,
      auth,
      headers: op.auth === 'publishable' ? { 'X-API-Key': store.keys.publishable_test.token } : {},
      body: bad.body,
    });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: declared });
  });
});
