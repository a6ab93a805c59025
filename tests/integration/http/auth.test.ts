import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import Koa from 'koa';
import { openapiJson } from '../../../src/generated/document.js';
import { operationIndex, type OperationMeta } from '../../../src/generated/operations.js';
import { authenticate } from '../../../src/http/middleware/auth.js';
import { errorHandler } from '../../../src/http/middleware/errors.js';
import type { RequestState } from '../../../src/http/state.js';
import { createProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

const store = useStore({ project: { domain: 'shop.example.com', domain_verified: false } });

const secretKeyInHeader = {
  code: 'unauthorized',
  message:
    'A secret key goes in Authorization: Bearer <secret key>, never in X-API-Key, which is for publishable keys.',
};
const getEvents = (headers: Record<string, string>) => fetch(`${store.app.baseUrl}/v1/events`, { headers });
async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect((await json(response)).error.code).toBe(code);
}

describe('secret operations (GET /v1/events)', () => {
  test('a missing key answers 401 unauthorized', async () => {
    await expectError(await getEvents({}), 401, 'unauthorized');
  });

  test('a secret key sent in X-API-Key to an operation that takes Authorization: Bearer is told where it goes', async () => {
    const missing = await json(await getEvents({}));
    expect(missing.error.message).toBe('Missing API key. Send it as Authorization: Bearer <API key>.');
    const misplaced = await getEvents({ 'X-API-Key': store.keys.secret_test.token });
    expect(misplaced.status).toBe(401);
    expect((await json(misplaced)).error).toEqual(secretKeyInHeader);
  });

  test('one header rule: a secret key in X-API-Key is 401 on secret, publishable and customer operations alike', async () => {
    const sent = { 'X-API-Key': store.keys.secret_test.token };
    for (const path of ['/v1/customers', '/v1/products', '/v1/search?q=shirt', '/v1/me']) {
      const response = await fetch(`${store.app.baseUrl}${path}`, { headers: sent });
      expect([path, response.status, (await json(response)).error]).toEqual([path, 401, secretKeyInHeader]);
    }
    // As Bearer it is accepted on the publishable operation, as the secretKey scheme says.
    const bearer = await fetch(`${store.app.baseUrl}/v1/products`, {
      headers: { Authorization: `Bearer ${store.keys.secret_test.token}` },
    });
    expect(bearer.status).toBe(200);
  });

  test('a publishable key, in X-API-Key or as Bearer, answers 403 "this operation needs a secret key"', async () => {
    const error = {
      code: 'forbidden',
      message: 'This operation needs a secret key (Authorization: Bearer sk_...); publishable keys cannot use it.',
    };
    const sent: Array<Record<string, string>> = [
      { 'X-API-Key': store.keys.publishable_test.token },
      { Authorization: `Bearer ${store.keys.publishable_test.token}` },
    ];
    for (const headers of sent) {
      const response = await getEvents(headers);
      expect(response.status).toBe(403);
      expect((await json(response)).error).toEqual(error);
    }
  });

  test('a malformed key or Authorization header answers 401 unauthorized', async () => {
    await expectError(await getEvents({ Authorization: 'Bearer not-a-key' }), 401, 'unauthorized');
    await expectError(await getEvents({ Authorization: 'Bearer sk_test_short' }), 401, 'unauthorized');
    await expectError(await getEvents({ Authorization: `Basic ${store.keys.secret_test.token}` }), 401, 'unauthorized');
  });

  test('the malformed-key message names the prefixes only when the prefix is wrong', async () => {
    const wrongPrefix = await getEvents({ Authorization: 'Bearer not-a-key' });
    expect(wrongPrefix.status).toBe(401);
    expect((await json(wrongPrefix)).error.message).toBe(
      'Malformed API key. Keys start with sk_live_, sk_test_, pk_live_ or pk_test_.',
    );
    for (const token of ['sk_test_short', `pk_live_${'A'.repeat(41)}`, `sk_test_${'A'.repeat(39)}-`]) {
      const response = await getEvents({ Authorization: `Bearer ${token}` });
      expect(response.status).toBe(401);
      const { error } = await json(response);
      expect(error.code).toBe('unauthorized');
      expect(error.message).toBe(
        `Malformed API key: after ${token.slice(0, 8)} a key has exactly 40 letters and digits. Check that the whole key was copied.`,
      );
    }
  });

  test('a well-formed key that does not exist answers 401 unauthorized', async () => {
    await expectError(await getEvents({ Authorization: `Bearer sk_test_${'A'.repeat(40)}` }), 401, 'unauthorized');
  });

  test('a publishable key answers 403 forbidden, test or live', async () => {
    await expectError(
      await getEvents({ Authorization: `Bearer ${store.keys.publishable_test.token}` }),
      403,
      'forbidden',
    );
    await expectError(
      await getEvents({ Authorization: `Bearer ${store.keys.publishable_live.token}` }),
      403,
      'forbidden',
    );
  });

  test('secret keys of both modes are accepted', async () => {
    expect((await getEvents({ Authorization: `Bearer ${store.keys.secret_test.token}` })).status).toBe(200);
    expect((await getEvents({ Authorization: `Bearer ${store.keys.secret_live.token}` })).status).toBe(200);
  });

  test('a suspended project answers 403 account_suspended, before any other key check', async () => {
    const suspended = await createProject(store.app);
    await store.app.deps.db.project.update({ where: { id: suspended.project.id }, data: { suspended: true } });
    await expectError(
      await getEvents({ Authorization: `Bearer ${suspended.keys.secret_test.token}` }),
      403,
      'account_suspended',
    );
    await expectError(
      await getEvents({ Authorization: `Bearer ${suspended.keys.publishable_test.token}` }),
      403,
      'account_suspended',
    );
  });
});

// No publishable operation exists yet in openapi.yaml, so these rules are checked on the real
// middleware mounted for operations of each credential kind, against the same database.
describe('publishable operations', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    const koa = new Koa<RequestState>();
    koa.use(errorHandler(store.app.deps.log));
    const operation = (auth: OperationMeta['auth']) => ({ auth }) as OperationMeta;
    const routes = { '/publishable': operation('publishable') };
    koa.use(async (ctx, next) => {
      const op = routes[ctx.path as keyof typeof routes];
      await authenticate(op, store.app.deps)(ctx, async () => {
        const service = ctx.state.service;
        ctx.body =
          service?.actor.kind === 'api_key'
            ? { project: service.project.id, key: { type: service.actor.keyType, mode: service.mode } }
            : {};
      });
      await next();
    });
    server = koa.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  test('a test publishable key needs no verified domain', async () => {
    const response = await fetch(`${baseUrl}/publishable`, {
      headers: { Authorization: `Bearer ${store.keys.publishable_test.token}` },
    });
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({
      project: store.project.id,
      key: { type: 'publishable', mode: 'test' },
    });
  });

  test('a live publishable key without a verified domain answers 403 domain_not_verified', async () => {
    const response = await fetch(`${baseUrl}/publishable`, {
      headers: { Authorization: `Bearer ${store.keys.publishable_live.token}` },
    });
    await expectError(response, 403, 'domain_not_verified');
  });

  test('a live publishable key works once the domain is verified', async () => {
    const verified = await createProject(store.app, { domain: 'verified.example.com', domain_verified: true });
    const response = await fetch(`${baseUrl}/publishable`, {
      headers: { Authorization: `Bearer ${verified.keys.publishable_live.token}` },
    });
    expect(response.status).toBe(200);
  });

  test('secret keys are accepted where a publishable key is', async () => {
    const response = await fetch(`${baseUrl}/publishable`, {
      headers: { Authorization: `Bearer ${store.keys.secret_live.token}` },
    });
    expect(response.status).toBe(200);
  });

  test('the publishable key is taken in X-API-Key, and X-API-Key wins over Authorization', async () => {
    const response = await fetch(`${baseUrl}/publishable`, {
      headers: { 'X-API-Key': store.keys.publishable_test.token, Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' },
    });
    expect(response.status).toBe(200);
    const missing = await fetch(`${baseUrl}/publishable`);
    await expectError(missing, 401, 'unauthorized');
    expect((await json(await fetch(`${baseUrl}/publishable`))).error.message).toBe(
      'Missing API key. Send your publishable key in the X-API-Key header.',
    );
  });

  test('a revoked publishable key answers 401 unauthorized', async () => {
    const other = await createProject(store.app);
    await store.app.deps.db.apiKey.update({
      where: { id: other.keys.publishable_test.id },
      data: { revokedAt: new Date() },
    });
    const response = await fetch(`${baseUrl}/publishable`, {
      headers: { Authorization: `Bearer ${other.keys.publishable_test.token}` },
    });
    await expectError(response, 401, 'unauthorized');
  });
});

/** The operation's path with every parameter filled by a placeholder id. */
const concrete = (op: OperationMeta) => op.path.replace(/\{\w+\}/g, 'x_placeholder');

describe('every publishable-key operation of the operation index', () => {
  const publishable = operationIndex.filter((op) => op.auth === 'publishable');
  const customer = operationIndex.filter((op) => op.auth === 'customer');
  const send = (op: OperationMeta, headers: Record<string, string>) =>
    fetch(`${store.app.baseUrl}${concrete(op)}`, {
      method: op.method,
      headers: { ...headers, ...(op.hasBody ? { 'Content-Type': 'application/json' } : {}) },
      body: op.hasBody ? '{}' : undefined,
    });

  test.each(publishable.map((op) => [op.operationId, op] as const))(
    '%s takes the publishable key in X-API-Key and as Authorization: Bearer',
    async (_id, op) => {
      const sent: Array<Record<string, string>> = [
        { 'X-API-Key': store.keys.publishable_test.token },
        { Authorization: `Bearer ${store.keys.publishable_test.token}` },
      ];
      for (const headers of sent) {
        // Past authentication: validation (400) or the placeholder id (404) answers, never 401 or 403.
        const { status } = await send(op, headers);
        expect({ headers: Object.keys(headers), refused: status === 401 || status === 403 }).toEqual({
          headers: Object.keys(headers),
          refused: false,
        });
      }
    },
  );

  test.each(customer.map((op) => [op.operationId, op] as const))(
    '%s takes the publishable key in X-API-Key, leaving Authorization to the access token',
    async (_id, op) => {
      const withKey = await send(op, { 'X-API-Key': store.keys.publishable_test.token });
      expect(withKey.status).toBe(401);
      expect((await json(withKey)).error.message).toMatch(/^Missing access token/);
      const withoutKey = await send(op, { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' });
      expect(withoutKey.status).toBe(401);
      expect((await json(withoutKey)).error.message).toBe(
        'Missing API key. Send your publishable key in the X-API-Key header.',
      );
    },
  );

  test('the contract lists X-API-Key (publishableKeyHeader) in the security of each of them', () => {
    const document = JSON.parse(openapiJson) as {
      paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
    };
    for (const op of [...publishable, ...customer]) {
      const security = document.paths[op.path][op.method.toLowerCase()].security ?? [];
      expect({ op: op.operationId, header: security.some((r) => 'publishableKeyHeader' in r) }).toEqual({
        op: op.operationId,
        header: true,
      });
      if (op.auth === 'publishable')
        expect({ op: op.operationId, bearer: security.some((r) => 'publishableKey' in r) }).toEqual({
          op: op.operationId,
          bearer: true,
        });
    }
    expect(publishable.map((op) => op.operationId)).toEqual(
      expect.arrayContaining(['searchCatalog', 'suggestSearch', 'listProducts', 'getProduct', 'lookupShippingRates']),
    );
  });
});
