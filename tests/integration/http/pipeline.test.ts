import { describe, expect, test } from '@jest/globals';
import { contractViolations } from '../../../src/http/middleware/response-check.js';
import type { Handlers } from '../../../src/shared/contract.js';
import { itemsFromJson } from '../../../src/shared/item-json.js';
import { json } from '../../setup/http.js';
import { startTestApp, TEST_PLATFORM_TOKEN } from '../../setup/test-app.js';
import { useApp } from '../../setup/store.js';

const app = useApp();

const postProject = (body: string | Buffer, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
  fetch(`${app.baseUrl}/platform/v1/projects`, {
    method: 'POST',
    body,
    headers: { Authorization: `Bearer ${TEST_PLATFORM_TOKEN}`, ...headers },
  });

describe('request id', () => {
  test('echoes a sent X-Request-Id and makes one otherwise', async () => {
    const echoed = await fetch(`${app.baseUrl}/healthz`, { headers: { 'X-Request-Id': 'req-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('req-123');
    const made = await fetch(`${app.baseUrl}/healthz`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('routing', () => {
  test('an unknown path answers 404 not_found in the error shape', async () => {
    const response = await fetch(`${app.baseUrl}/v1/does-not-exist`);
    expect(response.status).toBe(404);
    expect((await json(response)).error.code).toBe('not_found');
  });

  test('a known path with another method answers 405 with Allow, in the error shape', async () => {
    const response = await fetch(`${app.baseUrl}/v1/events`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    const body = await json(response);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toContain('DELETE');
  });
});

describe('request bodies', () => {
  test('malformed JSON answers 400 invalid_request', async () => {
    const response = await postProject('{"name": "x",');
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
  });

  test('a body that is not application/json answers 400 invalid_request', async () => {
    const response = await postProject('name=x', { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'Content-Type' });
  });

  test('a body over 1 MiB answers 400 invalid_request', async () => {
    const response = await postProject(JSON.stringify({ name: 'x', padding: 'a'.repeat(1024 * 1024) }));
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toContain('1 MiB');
  });

  test('a JSON scalar where an object is expected answers 400', async () => {
    const response = await postProject('"just a string"');
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
  });

  test('a required body that is absent answers 400 invalid_request', async () => {
    const response = await fetch(`${app.baseUrl}/platform/v1/projects`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TEST_PLATFORM_TOKEN}` },
    });
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
  });
});

describe('validation', () => {
  test('one invalid field answers 400 invalid_request naming the field', async () => {
    const response = await postProject(JSON.stringify({ name: 'x', plan: 'enterprise' }));
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({
      error: { code: 'invalid_request', message: 'plan must be one of: free, pro.', field: 'plan' },
    });
  });

  test('several invalid fields answer 400 validation_error with one detail each', async () => {
    const response = await postProject(JSON.stringify({ name: '', currency: 'usd', surprise: true }));
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.code).toBe('validation_error');
    expect(error.field).toBeUndefined();
    expect(error.details).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'name must be at least 1 character long.' },
        { field: 'currency', message: expect.stringContaining('3-letter ISO 4217') },
        { field: 'surprise', message: 'surprise is not a field this operation accepts.' },
      ]),
    );
    expect(error.details).toHaveLength(3);
  });

  test('nested fields are named with their path', async () => {
    const response = await postProject(
      JSON.stringify({ name: 'x', tax: { enabled: true, inclusive: false, rates: [{ country: 'DE', rate: 2 }] } }),
    );
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'tax.rates[0].rate' });
  });

  test('query parameters are validated and coerced: limit out of range answers 400 with field limit', async () => {
    const project = await app.platform.POST('/platform/v1/projects', { body: { name: 'Query Store' } });
    const key = project.data!.data.keys.secret_test.token;
    const response = await fetch(`${app.baseUrl}/v1/events?limit=0`, { headers: { Authorization: `Bearer ${key}` } });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_request', field: 'limit' });
    const notANumber = await fetch(`${app.baseUrl}/v1/events?limit=ten`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect((await json(notANumber)).error).toMatchObject({
      code: 'invalid_request',
      field: 'limit',
      message: 'limit must be an integer.',
    });
    expect(
      (await fetch(`${app.baseUrl}/v1/events?limit=100`, { headers: { Authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
  });
});

describe('unexpected errors', () => {
  test('answer 500 internal_error quoting the request id, without stack or details', async () => {
    const failing = await startTestApp({
      handlers: {
        getHealth: async () => {
          throw new Error('database exploded at /srv/app/secret.ts:12');
        },
      },
    });
    try {
      const response = await fetch(`${failing.baseUrl}/healthz`, { headers: { 'X-Request-Id': 'trace-42' } });
      expect(response.status).toBe(500);
      const body = await json(response);
      expect(body.error.code).toBe('internal_error');
      expect(body.error.message).toContain('trace-42');
      expect(JSON.stringify(body)).not.toContain('exploded');
    } finally {
      await failing.close();
    }
  });
});

describe('response check', () => {
  test('a response the contract does not declare is turned into a 500 and recorded', async () => {
    const lying = await startTestApp({
      handlers: { getHealth: async () => ({ status: 200, body: { status: 'fine' } }) } as unknown as Partial<Handlers>,
    });
    try {
      const response = await fetch(`${lying.baseUrl}/healthz`);
      expect(response.status).toBe(500);
      expect((await json(response)).error.message).toContain('violates openapi.yaml');
      const seen = contractViolations.splice(0);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toContain('getHealth 200');
    } finally {
      await lying.close();
    }
  });

  test('a list sent from its items’ texts must parse to the handler’s answer: spacing aside, an item changed after its page was built is a violation', async () => {
    // Health declares no list: what is checked here is which violation each answer gets.
    const answers = [
      itemsFromJson<{ a: number }>(['{"a" : 1, "b" : [1, 2]}']),
      itemsFromJson<{ a: number }>(['{"a":1}']),
    ];
    answers[1][0].a = 2;
    const lying = await startTestApp({
      handlers: {
        getHealth: async () => ({ status: 200, body: { status: 'ok', checks: answers.shift() } }),
      } as unknown as Partial<Handlers>,
    });
    try {
      for (let i = 0; i < 2; i++) expect((await fetch(`${lying.baseUrl}/healthz`)).status).toBe(500);
      const [spaced, changed] = contractViolations.splice(0);
      expect(spaced).not.toContain('differs');
      expect(changed).toContain('the list sent differs from the handler');
    } finally {
      await lying.close();
    }
  });

  test('an undeclared status is a violation', async () => {
    const lying = await startTestApp({
      handlers: { getHealth: async () => ({ status: 202, body: { status: 'ok' } }) } as unknown as Partial<Handlers>,
    });
    try {
      expect((await fetch(`${lying.baseUrl}/healthz`)).status).toBe(500);
      expect(contractViolations.splice(0)[0]).toContain('status 202 is not declared');
    } finally {
      await lying.close();
    }
  });
});
