import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { openapiJson } from '../../../src/generated/document.js';
import { operationIndex, type OperationMeta } from '../../../src/generated/operations.js';
import { ContractChecker } from '../../../src/http/middleware/contract-checker.js';
import { startPrism, type Prism } from '../../setup/prism.js';
import { useStore } from '../../setup/store.js';

// `npm run mock` is faithful: Prism serves openapi.yaml, one operation of every tag answers a body that
// validates against the document, and its error examples are the server's own words.
const document = JSON.parse(openapiJson) as {
  paths: Record<string, Record<string, any>>;
  components: { parameters: Record<string, any> };
};
const checker = new ContractChecker();
const store = useStore();
let prism: Prism;

beforeAll(async () => {
  prism = await startPrism({ mock: true });
}, 90_000);
afterAll(async () => {
  await prism?.stop();
});

/** Credentials of the right kind for the operation (Prism checks their presence and form only). */
function credentials(auth: OperationMeta['auth']): Record<string, string> {
  const key = { secret: 'sk_test_', publishable: 'pk_test_' };
  switch (auth) {
    case 'none':
      return {};
    case 'platform':
      return { Authorization: 'Bearer platform-token-0123456789' };
    case 'customer':
      return {
        Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln',
        'X-API-Key': `${key.publishable}${'a'.repeat(40)}`,
      };
    case 'publishable':
      return { 'X-API-Key': `${key.publishable}${'a'.repeat(40)}` };
    default:
      return { Authorization: `Bearer ${key.secret}${'a'.repeat(40)}` };
  }
}

/** A value for a parameter: its example, else its schema's example, first enum value or default, else a placeholder. */
const sample = (param: any) =>
  String(param?.example ?? param?.schema?.example ?? param?.schema?.enum?.[0] ?? param?.schema?.default ?? 'x');

/** The operation's URL: path parameters and required query parameters filled with samples. */
function concretePath(op: OperationMeta): string {
  const item = document.paths[op.path];
  const params = [...(item.parameters ?? []), ...(item[op.method.toLowerCase()].parameters ?? [])].map((p: any) =>
    p.$ref ? document.components.parameters[p.$ref.split('/').pop()] : p,
  );
  const path = op.path.replace(/\{(\w+)\}/g, (_all, name: string) =>
    encodeURIComponent(sample(params.find((p: any) => p.in === 'path' && p.name === name))),
  );
  const query = new URLSearchParams(
    params.filter((p: any) => p.in === 'query' && p.required).map((p: any): [string, string] => [p.name, sample(p)]),
  );
  return query.size > 0 ? `${path}?${query.toString()}` : path;
}

/** A JSON read of each tag: lists first, then reads with the fewest path parameters. */
function oneReadPerTag(): OperationMeta[] {
  const answersJson = (op: OperationMeta) =>
    Boolean(document.paths[op.path][op.method.toLowerCase()].responses['200']?.content?.['application/json']);
  const reads = operationIndex.filter((op) => op.method === 'GET' && answersJson(op));
  const weight = (op: OperationMeta) => (op.path.match(/\{/g)?.length ?? 0) * 100 + op.path.length;
  const tags = [...new Set(operationIndex.map((op) => op.tag))].sort();
  return tags.map((tag) => {
    const candidates = reads.filter((op) => op.tag === tag).sort((a, b) => weight(a) - weight(b));
    if (candidates.length === 0)
      throw new Error(
        `tag ${tag} has no JSON read for the mock test; give it one or pick another of its operations here`,
      );
    return candidates[0];
  });
}

describe('npm run mock (Prism on openapi.yaml)', () => {
  test.each(oneReadPerTag().map((op) => [op.tag, op.operationId, op] as const))(
    '%s: %s answers a body that validates against the document',
    async (_tag, _id, op) => {
      const response = await fetch(`${prism.baseUrl}${concretePath(op)}`, { headers: credentials(op.auth) });
      const body = await response.json();
      expect(response.status).toBe(200);
      expect(checker.violation(op, response.status, body)).toBeUndefined();
    },
  );

  test("a request without a key: the mock's 401 is the server's, word for word", async () => {
    const mock = await fetch(`${prism.baseUrl}/v1/customers`);
    const server = await fetch(`${store.app.baseUrl}/v1/customers`);
    expect(mock.status).toBe(401);
    expect(server.status).toBe(401);
    expect(await mock.json()).toEqual(await server.json());
  });

  test("an invalid parameter: the mock answers the contract's 400 example", async () => {
    const response = await fetch(`${prism.baseUrl}/v1/customers?limit=500`, { headers: credentials('secret') });
    const server = await fetch(`${store.app.baseUrl}/v1/customers?limit=500`, {
      headers: { Authorization: `Bearer ${store.keys.secret_test.token}` },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(await server.json());
  });
});
