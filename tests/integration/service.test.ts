import { describe, expect, test } from '@jest/globals';
import { useApp } from '../setup/store.js';

const app = useApp();

describe('getHealth', () => {
  test('answers 200 {status: "ok"} without a key when the database answers', async () => {
    const { data, response } = await app.client().GET('/healthz');
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'ok' });
  });
});

describe('getOpenApiYaml / getOpenApiJson', () => {
  test('serve the contract as YAML and JSON without a key', async () => {
    const yaml = await fetch(`${app.baseUrl}/openapi.yaml`);
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toContain('application/yaml');
    expect(await yaml.text()).toMatch(/^openapi: 3\.1\.0/);
    const { data, response } = await app.client().GET('/openapi.json');
    expect(response.status).toBe(200);
    expect(data).toMatchObject({
      openapi: '3.1.0',
      paths: expect.objectContaining({ '/v1/events': expect.any(Object) }),
    });
  });
});
