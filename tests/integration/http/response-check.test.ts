import { describe, expect, test } from '@jest/globals';
import type { ParameterizedContext } from 'koa';
import { createCustomer } from '../../factories/customer.factory.js';
import { operationIndex } from '../../../src/generated/operations.js';
import { contractViolations, responseCheck } from '../../../src/http/middleware/response-check.js';
import type { RequestState } from '../../../src/http/state.js';
import type { Logger } from '../../../src/shared/logger.js';
import { json } from '../../setup/http.js';
import { useStore } from '../../setup/store.js';

const store = useStore();
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, flush: async () => {} };
const check = responseCheck(quiet);
const operation = (id: string) => operationIndex.find((op) => op.operationId === id)!;

/** What the test suite's response check makes of `body` answered to GET `url` by `operationId`. */
async function checked(operationId: string, url: string, body: unknown) {
  const ctx = {
    method: 'GET',
    url,
    query: Object.fromEntries(new URL(url, 'http://localhost').searchParams),
    state: { operation: operation(operationId), requestId: 'req_test' },
    status: 200,
    body,
  };
  await check(ctx as unknown as ParameterizedContext<RequestState>, async () => {});
  // Taken here, so the suite's own guard (tests/setup/contract-guard.ts) sees only this file's real answers.
  return { status: ctx.status, violations: contractViolations.splice(0) };
}

const without = <T extends object>(object: T, name: string) =>
  Object.fromEntries(Object.entries(object).filter(([key]) => key !== name));

describe('the response check knows whether `fields` was sent (getCustomer, listCustomers)', () => {
  test('without fields the whole Customer is required: an answer missing one required property is a violation', async () => {
    const created = await createCustomer(store.api);
    const whole = await json(await store.call('GET', `/v1/customers/${created.id}`));
    expect(await checked('getCustomer', `/v1/customers/${created.id}`, whole)).toEqual({ status: 200, violations: [] });
    const missing = await checked('getCustomer', `/v1/customers/${created.id}`, { data: without(whole.data, 'email') });
    expect(missing.status).toBe(500);
    expect(missing.violations).toEqual([
      `GET /v1/customers/${created.id}: getCustomer 200: body does not match openapi.yaml: /data must have required property 'email'`,
    ]);
  });

  test('with fields the sparse Customer is enough: id and the requested properties', async () => {
    const created = await createCustomer(store.api);
    const url = `/v1/customers/${created.id}?fields=email`;
    const sparse = await json(await store.call('GET', url));
    expect(sparse).toEqual({ data: { id: created.id, email: created.email } });
    expect(await checked('getCustomer', url, sparse)).toEqual({ status: 200, violations: [] });
    // The same sparse answer to a request without fields is not the contract's.
    const unasked = await checked('getCustomer', `/v1/customers/${created.id}`, sparse);
    expect(unasked.status).toBe(500);
    expect(unasked.violations[0]).toContain("/data must have required property 'first_name'");
  });

  test('lists too: an item missing a required property fails without fields, a sparse page passes with them', async () => {
    await createCustomer(store.api);
    const page = await json(await store.call('GET', '/v1/customers?limit=1'));
    expect(page.data).toHaveLength(1);
    const broken = { ...page, data: [without(page.data[0], 'created_at')] };
    const full = await checked('listCustomers', '/v1/customers?limit=1', broken);
    expect(full.violations).toEqual([
      "GET /v1/customers?limit=1: listCustomers 200: body does not match openapi.yaml: /data/0 must have required property 'created_at'",
    ]);
    const sparse = await json(await store.call('GET', '/v1/customers?limit=1&fields=email'));
    expect(sparse.data).toEqual([{ id: page.data[0].id, email: page.data[0].email }]);
    expect(await checked('listCustomers', '/v1/customers?limit=1&fields=email', sparse)).toEqual({
      status: 200,
      violations: [],
    });
  });
});
