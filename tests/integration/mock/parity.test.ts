import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { portOf, startMockFront } from '../../../mocks/mock-front.js';
import { freePort } from '../../../src/db/embedded-postgres.js';
import { operationIndex } from '../../../src/generated/operations.js';
import { ContractChecker } from '../../../src/http/middleware/contract-checker.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { startPrism, type Prism } from '../../setup/prism.js';
import { useStore } from '../../setup/store.js';

// One corpus of requests, sent to `npm run mock` (Prism behind mocks/mock-front.ts) and to the real server: each
// must get the same status and error code from both, and every answer of the mock validates against the document.
// Documented exceptions (mocks/README.md): the mock keeps no state, so an id of the right form that names nothing
// answers the example (200) where the server answers 404, and any well-formed key is accepted (the server: 401
// for a key it does not hold).
const store = useStore();
const checker = new ContractChecker();
let prism: Prism;
let front: http.Server;
let mockUrl: string;
let customerId: string;

beforeAll(async () => {
  prism = await startPrism({ mock: true });
  front = await startMockFront('127.0.0.1', await freePort(), prism.baseUrl);
  mockUrl = `http://127.0.0.1:${portOf(front)}`;
  customerId = (await createCustomer(store.api)).id;
}, 90_000);
afterAll(async () => {
  await new Promise((resolve) => front?.close(resolve));
  await prism?.stop();
});

type Credential = 'secret' | 'publishable' | 'secret-in-header' | 'malformed' | 'none';
interface Case {
  name: string;
  method: string;
  path: string | (() => string);
  credential: Credential;
  body?: string;
}

function headersFor(credential: Credential): Record<string, string> {
  const keys = store.keys;
  switch (credential) {
    case 'secret':
      return { Authorization: `Bearer ${keys.secret_test.token}` };
    case 'publishable':
      return { 'X-API-Key': keys.publishable_test.token };
    case 'secret-in-header':
      return { 'X-API-Key': keys.secret_test.token };
    case 'malformed':
      return { Authorization: 'Bearer hello' };
    case 'none':
      return {};
  }
}

const customer = JSON.stringify({ email: 'parity@example.com', first_name: 'Par', last_name: 'Ity' });
const corpus: Case[] = [
  { name: 'a list', method: 'GET', path: '/v1/customers?limit=2', credential: 'secret' },
  { name: 'a list with fields', method: 'GET', path: '/v1/customers?limit=1&fields=email', credential: 'secret' },
  { name: 'a read by id', method: 'GET', path: () => `/v1/customers/${customerId}`, credential: 'secret' },
  { name: 'a create', method: 'POST', path: '/v1/customers', credential: 'secret', body: customer },
  { name: 'a storefront read', method: 'GET', path: '/v1/products?limit=2', credential: 'publishable' },
  { name: 'an unknown query parameter', method: 'GET', path: '/v1/customers?q=ada', credential: 'secret' },
  { name: 'a parameter out of range', method: 'GET', path: '/v1/customers?limit=500', credential: 'secret' },
  { name: 'an id of another form', method: 'GET', path: '/v1/customers/cus_bogus', credential: 'secret' },
  { name: 'a product id of another form', method: 'GET', path: '/v1/products/hello', credential: 'publishable' },
  { name: 'no key', method: 'GET', path: '/v1/customers', credential: 'none' },
  { name: 'a malformed key', method: 'GET', path: '/v1/customers', credential: 'malformed' },
  { name: 'a publishable key on a secret operation', method: 'GET', path: '/v1/customers', credential: 'publishable' },
  { name: 'a secret key in X-API-Key', method: 'GET', path: '/v1/products', credential: 'secret-in-header' },
  { name: 'no storefront key', method: 'GET', path: '/v1/search?q=shirt', credential: 'none' },
  { name: 'no access token on /v1/me', method: 'GET', path: '/v1/me', credential: 'publishable' },
  { name: "no access token on the customer's orders", method: 'GET', path: '/v1/me/orders', credential: 'publishable' },
  {
    name: "no access token on the customer's address book",
    method: 'POST',
    path: '/v1/me/addresses',
    credential: 'publishable',
    body: '{"line1":"Friedrichstrasse 68","city":"Berlin","country":"DE"}',
  },
  { name: 'a preflight of a /v1/me path', method: 'OPTIONS', path: '/v1/me/addresses', credential: 'none' },
  { name: 'one invalid body field', method: 'POST', path: '/v1/customers', credential: 'secret', body: '{}' },
  {
    name: 'several invalid body fields',
    method: 'POST',
    path: '/v1/customers',
    credential: 'secret',
    body: '{"email":"x"}',
  },
  {
    name: 'an unknown body field',
    method: 'POST',
    path: '/v1/customers',
    credential: 'secret',
    body: customer.replace('{', '{"nickname":"p",'),
  },
  { name: 'a body that is not JSON', method: 'POST', path: '/v1/customers', credential: 'secret', body: '{"email":' },
  { name: 'no body where one is required', method: 'POST', path: '/v1/customers', credential: 'secret' },
  {
    name: 'an invalid storefront body',
    method: 'POST',
    path: '/v1/shipping/rates',
    credential: 'publishable',
    body: '{"country":"Germany"}',
  },
  { name: 'an unknown path', method: 'GET', path: '/v1/nothing-here', credential: 'secret' },
  { name: 'a method the path does not take', method: 'DELETE', path: '/v1/search', credential: 'publishable' },
  { name: 'a preflight of a storefront path', method: 'OPTIONS', path: '/v1/products', credential: 'none' },
  { name: 'a preflight of a secret path', method: 'OPTIONS', path: '/v1/customers', credential: 'none' },
  // Every read by id of a secret-key operation, with ids of another form: 404 from both.
  ...operationIndex
    .filter(
      (op) => op.method === 'GET' && op.auth === 'secret' && /\{id\}/.test(op.path) && !op.path.startsWith('/platform'),
    )
    .map((op) => ({
      name: `${op.operationId} with an id of another form`,
      method: 'GET',
      path: op.path.replace(/\{(\w+)\}/g, 'bogus'),
      credential: 'secret' as const,
    })),
];

/** Status, error code (or null), whether X-Request-Id was echoed, and the body, of one request. */
async function send(baseUrl: string, item: Case) {
  const path = typeof item.path === 'function' ? item.path() : item.path;
  const response = await fetch(`${baseUrl}${path}`, {
    method: item.method,
    headers: {
      ...headersFor(item.credential),
      'X-Request-Id': 'parity-1',
      ...(item.method === 'OPTIONS' && { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'GET' }),
      ...(item.body !== undefined && { 'Content-Type': 'application/json' }),
    },
    body: item.body,
  });
  const text = await response.text();
  const body = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
  return {
    status: response.status,
    code: (body as { error?: { code: string } } | undefined)?.error?.code ?? null,
    requestId: response.headers.get('x-request-id'),
    cors: response.headers.get('access-control-allow-origin'),
    body,
  };
}

describe('npm run mock answers as the server does', () => {
  test.each(corpus.map((item) => [item.name, item] as const))('%s', async (_name, item) => {
    const [mock, server] = [await send(mockUrl, item), await send(store.app.baseUrl, item)];
    expect({ status: mock.status, code: mock.code, cors: mock.cors }).toEqual({
      status: server.status,
      code: server.code,
      cors: server.cors,
    });
    expect(mock.requestId).toBe('parity-1');
    // fields= is honoured: the mock's rows carry id and the named fields only, as the server's.
    if (item.path === '/v1/customers?limit=1&fields=email') {
      const [row] = (mock.body as { data: Array<Record<string, unknown>> }).data;
      expect(Object.keys(row).sort()).toEqual(['email', 'id']);
    }
  });

  test('every answer of the mock in the corpus validates against the document', async () => {
    const index = new Map(operationIndex.map((op) => [`${op.method} ${op.path}`, op]));
    for (const item of corpus.filter((c) => c.method !== 'OPTIONS')) {
      const answer = await send(mockUrl, item);
      const [path, query = ''] = (typeof item.path === 'function' ? item.path() : item.path).split('?');
      const operation = [...index.values()].find(
        (op) => op.method === item.method && new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
      );
      if (!operation || answer.body === undefined) continue; // unknown paths and methods: no operation to check against
      // The whole schema unless the request sent fields= (the sparse one then), as the response check knows.
      const sparse = new URLSearchParams(query).has('fields');
      expect([item.name, checker.violation(operation, answer.status, answer.body, sparse)]).toEqual([
        item.name,
        undefined,
      ]);
    }
  });
});
