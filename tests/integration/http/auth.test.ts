import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import Koa from 'koa';
import type { OperationMeta } from '../../../src/generated/operations.js';
import { authenticate } from '../../../src/http/middleware/auth.js';
import { errorHandler } from '../../../src/http/middleware/errors.js';
import type { RequestState } from '../../../src/http/state.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { json } from '../../setup/http.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

let app: TestApp;
let project: CreatedProject;
beforeAll(async () => {
  app = await startTestApp();
  project = await createProject(app, { domain: 'shop.example.com', domain_verified: false });
});
afterAll(() => app.close());

const getEvents = (headers: Record<string, string>) => fetch(`${app.baseUrl}/v1/events`, { headers });
async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect((await json(response)).error.code).toBe(code);
}

describe('secret operations (GET /v1/events)', () => {
  test('a missing key answers 401 unauthorized', async () => {
    await expectError(await getEvents({}), 401, 'unauthorized');
  });

  test('a malformed key or Authorization header answers 401 unauthorized', async () => {
    await expectError(await getEvents({ Authorization: 'Bearer not-a-key' }), 401, 'unauthorized');
    await expectError(await getEvents({ Authorization: 'Bearer sk_test_short' }), 401, 'unauthorized');
    await expectError(await getEvents({ Authorization: `Basic ${project.keys.secret_test.token}` }), 401, 'unauthorized');
  });

  test('a well-formed key that does not exist answers 401 unauthorized', async () => {
    await expectError(await getEvents({ Authorization: `Bearer sk_test_${'A'.repeat(40)}` }), 401, 'unauthorized');
  });

  test('a publishable key answers 403 forbidden, test or live', async () => {
    await expectError(await getEvents({ Authorization: `Bearer ${project.keys.publishable_test.token}` }), 403, 'forbidden');
    await expectError(await getEvents({ Authorization: `Bearer ${project.keys.publishable_live.token}` }), 403, 'forbidden');
  });

  test('secret keys of both modes are accepted', async () => {
    expect((await getEvents({ Authorization: `Bearer ${project.keys.secret_test.token}` })).status).toBe(200);
    expect((await getEvents({ Authorization: `Bearer ${project.keys.secret_live.token}` })).status).toBe(200);
  });

  test('a suspended project answers 403 account_suspended, before any other key check', async () => {
    const suspended = await createProject(app);
    await app.deps.db.project.update({ where: { id: suspended.project.id }, data: { suspended: true } });
    await expectError(await getEvents({ Authorization: `Bearer ${suspended.keys.secret_test.token}` }), 403, 'account_suspended');
    await expectError(await getEvents({ Authorization: `Bearer ${suspended.keys.publishable_test.token}` }), 403, 'account_suspended');
  });
});

// No publishable operation exists yet in openapi.yaml, so these rules are checked on the real
// middleware mounted for operations of each credential kind, against the same database.
describe('publishable operations', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    const koa = new Koa<RequestState>();
    koa.use(errorHandler(app.deps.log));
    const operation = (auth: OperationMeta['auth']) => ({ auth }) as OperationMeta;
    const routes = { '/publishable': operation('publishable'), '/publishable-header': operation('publishableHeader') };
    koa.use(async (ctx, next) => {
      const op = routes[ctx.path as keyof typeof routes];
      await authenticate(op, app.deps)(ctx, async () => {
        const service = ctx.state.service;
        ctx.body = service?.actor.kind === 'api_key' ? { project: service.project.id, key: { type: service.actor.keyType, mode: service.mode } } : {};
      });
      await next();
    });
    server = koa.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  test('a test publishable key needs no verified domain', async () => {
    const response = await fetch(`${baseUrl}/publishable`, { headers: { Authorization: `Bearer ${project.keys.publishable_test.token}` } });
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ project: project.project.id, key: { type: 'publishable', mode: 'test' } });
  });

  test('a live publishable key without a verified domain answers 403 domain_not_verified', async () => {
    const response = await fetch(`${baseUrl}/publishable`, { headers: { Authorization: `Bearer ${project.keys.publishable_live.token}` } });
    await expectError(response, 403, 'domain_not_verified');
  });

  test('a live publishable key works once the domain is verified', async () => {
    const verified = await createProject(app, { domain: 'verified.example.com', domain_verified: true });
    const response = await fetch(`${baseUrl}/publishable`, { headers: { Authorization: `Bearer ${verified.keys.publishable_live.token}` } });
    expect(response.status).toBe(200);
  });

  test('secret keys are accepted where a publishable key is', async () => {
    const response = await fetch(`${baseUrl}/publishable`, { headers: { Authorization: `Bearer ${project.keys.secret_live.token}` } });
    expect(response.status).toBe(200);
  });

  test('customer-auth operations take the publishable key in X-API-Key', async () => {
    const response = await fetch(`${baseUrl}/publishable-header`, { headers: { 'X-API-Key': project.keys.publishable_test.token } });
    expect(response.status).toBe(200);
    const missing = await fetch(`${baseUrl}/publishable-header`);
    await expectError(missing, 401, 'unauthorized');
  });

  test('a revoked publishable key answers 401 unauthorized', async () => {
    const other = await createProject(app);
    await app.deps.db.apiKey.update({ where: { id: other.keys.publishable_test.id }, data: { revokedAt: new Date() } });
    const response = await fetch(`${baseUrl}/publishable`, { headers: { Authorization: `Bearer ${other.keys.publishable_test.token}` } });
    await expectError(response, 401, 'unauthorized');
  });
});
