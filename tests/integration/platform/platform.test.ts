import { describe, expect, test } from '@jest/globals';
import { recordEmail } from '../../../src/modules/platform/outbox.service.js';
import { createProject } from '../../factories/project.factory.js';
import { startTestApp, TEST_PLATFORM_TOKEN, type TestApp } from '../../setup/test-app.js';
import { useApp } from '../../setup/store.js';

const app = useApp();

const events = (app: TestApp, key: string) => app.client(key).GET('/v1/events');

describe('createProject', () => {
  test('contact_email (where the service writes to the merchant) is kept, changed and cleared', async () => {
    const { data } = await app.platform.POST('/platform/v1/projects', {
      body: { name: 'Contact Store', contact_email: 'owner@contact.example.com' },
    });
    const project = data!.data.project;
    expect(project.contact_email).toBe('owner@contact.example.com');
    const path = { params: { path: { id: project.id } } };
    const changed = await app.platform.PATCH('/platform/v1/projects/{id}', {
      ...path,
      body: { contact_email: 'ops@contact.example.com' },
    });
    expect(changed.data!.data.contact_email).toBe('ops@contact.example.com');
    const cleared = await app.platform.PATCH('/platform/v1/projects/{id}', { ...path, body: { contact_email: null } });
    expect(cleared.data!.data.contact_email).toBeNull();
    const invalid = await app.platform.PATCH('/platform/v1/projects/{id}', {
      ...path,
      body: { contact_email: 'not an address' },
    });
    expect(invalid.error!.error).toMatchObject({ code: 'invalid_request', field: 'contact_email' });
  });

  test('creates a project with defaults, a default location and four working keys shown once', async () => {
    const { data, response } = await app.platform.POST('/platform/v1/projects', { body: { name: 'Acme Outdoor' } });
    expect(response.status).toBe(201);
    const { project, keys } = data!.data;
    expect(project).toMatchObject({
      name: 'Acme Outdoor',
      domain: null,
      domain_verified: false,
      extensions: ['custom_data', 'locations'],
      plan: 'free',
      currency: 'USD',
      locale: 'en',
      suspended: false,
      rate_limit_per_minute: 600,
      monthly_quota: 1_000_000,
      tax: { enabled: false, inclusive: false, rates: [] },
      exchange_rates: {},
      contact_email: null,
    });
    expect(project.default_location_id).toMatch(/^loc_/);
    expect(keys.secret_test.token).toMatch(/^sk_test_/);
    expect(keys.secret_live.token).toMatch(/^sk_live_/);
    expect(keys.publishable_test.token).toMatch(/^pk_test_/);
    expect(keys.publishable_live.token).toMatch(/^pk_live_/);
    expect((await events(app, keys.secret_test.token)).response.status).toBe(200);
    expect((await events(app, keys.secret_live.token)).response.status).toBe(200);
  });

  test('stores key tokens only as hashes', async () => {
    const { keys } = await createProject(app);
    const stored = await app.deps.db.apiKey.findUnique({ where: { id: keys.secret_test.id } });
    expect(stored!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(keys.secret_test.token);
  });

  test('a missing name answers 400 invalid_request with field name', async () => {
    const { error, response } = await app.platform.POST('/platform/v1/projects', { body: {} as never });
    expect(response.status).toBe(400);
    expect(error).toEqual({ error: { code: 'invalid_request', message: 'name is required.', field: 'name' } });
  });
});

describe('getProject / updateProject', () => {
  test('reads and partially updates settings', async () => {
    const { project } = await createProject(app, { currency: 'EUR' });
    const { data, response } = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.id } },
      body: { plan: 'pro', exchange_rates: { USD: 1.08 }, rate_limit_per_minute: 1200 },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      plan: 'pro',
      currency: 'EUR',
      exchange_rates: { USD: 1.08 },
      rate_limit_per_minute: 1200,
    });
    const read = await app.platform.GET('/platform/v1/projects/{id}', { params: { path: { id: project.id } } });
    expect(read.data!.data).toEqual(data!.data);
  });

  test('an unknown project answers 404 not_found', async () => {
    const { error, response } = await app.platform.GET('/platform/v1/projects/{id}', {
      params: { path: { id: 'proj_missing' } },
    });
    expect(response.status).toBe(404);
    expect(error!.error.code).toBe('not_found');
  });

  test('suspending a project makes its keys answer 403 account_suspended; lifting it restores access', async () => {
    const { project, keys } = await createProject(app);
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.id } },
      body: { suspended: true },
    });
    const suspended = await events(app, keys.secret_test.token);
    expect(suspended.response.status).toBe(403);
    expect(suspended.error!.error.code).toBe('account_suspended');
    await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.id } },
      body: { suspended: false },
    });
    expect((await events(app, keys.secret_test.token)).response.status).toBe(200);
  });

  test('an empty update answers 400', async () => {
    const { project } = await createProject(app);
    const { response } = await app.platform.PATCH('/platform/v1/projects/{id}', {
      params: { path: { id: project.id } },
      body: {},
    });
    expect(response.status).toBe(400);
  });
});

describe('createApiKey / revokeApiKey', () => {
  test('a new key works until revoked, then answers 401 unauthorized; revoking again is 204', async () => {
    const { project } = await createProject(app);
    const created = await app.platform.POST('/platform/v1/projects/{id}/keys', {
      params: { path: { id: project.id } },
      body: { type: 'secret', mode: 'live' },
    });
    expect(created.response.status).toBe(201);
    const { id, token } = created.data!.data;
    expect(token).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
    expect((await events(app, token)).response.status).toBe(200);

    const revoked = await app.platform.DELETE('/platform/v1/keys/{id}', { params: { path: { id } } });
    expect(revoked.response.status).toBe(204);
    const after = await events(app, token);
    expect(after.response.status).toBe(401);
    expect(after.error!.error.code).toBe('unauthorized');
    expect((await app.platform.DELETE('/platform/v1/keys/{id}', { params: { path: { id } } })).response.status).toBe(
      204,
    );
  });

  test('creating a key for an unknown project answers 404; revoking an unknown key answers 404', async () => {
    const created = await app.platform.POST('/platform/v1/projects/{id}/keys', {
      params: { path: { id: 'proj_missing' } },
      body: { type: 'secret', mode: 'test' },
    });
    expect(created.response.status).toBe(404);
    const revoked = await app.platform.DELETE('/platform/v1/keys/{id}', { params: { path: { id: 'key_missing' } } });
    expect(revoked.response.status).toBe(404);
  });
});

describe('listOutboxEmails', () => {
  test('lists recorded e-mails newest first, filtered by recipient case-insensitively', async () => {
    const { project } = await createProject(app);
    for (const to of ['Jane.Doe@example.com', 'max@example.com', 'jane.doe@example.com']) {
      await app.deps.db.$transaction((tx) =>
        recordEmail(tx, project.id, {
          to: [to],
          subject: 'Reset your password',
          text: 'Your code: 123',
          template: 'password_reset',
          data: { token: 'abc' },
          locale: 'en',
        }),
      );
    }
    const all = await app.platform.GET('/platform/v1/projects/{id}/outbox', { params: { path: { id: project.id } } });
    expect(all.response.status).toBe(200);
    expect(all.data!.pagination).toEqual({ cursor: null, has_more: false, total: 3 });
    const jane = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: project.id }, query: { to: 'JANE.DOE@example.com', limit: 1 } },
    });
    expect(jane.data!.data).toHaveLength(1);
    expect(jane.data!.data[0].to).toEqual(['jane.doe@example.com']);
    expect(jane.data!.pagination).toMatchObject({ has_more: true, total: 2 });
  });
});

describe('platform token', () => {
  test('a missing or wrong platform token answers 401 unauthorized', async () => {
    const none = await app.client().GET('/platform/v1/projects/{id}', { params: { path: { id: 'proj_x' } } });
    expect(none.response.status).toBe(401);
    const wrong = await app
      .client(`${TEST_PLATFORM_TOKEN}x`)
      .GET('/platform/v1/projects/{id}', { params: { path: { id: 'proj_x' } } });
    expect(wrong.response.status).toBe(401);
    expect(wrong.error!.error.code).toBe('unauthorized');
  });

  test('an API key is not a platform token', async () => {
    const { keys } = await createProject(app);
    const { response } = await app
      .client(keys.secret_live.token)
      .POST('/platform/v1/projects', { body: { name: 'x' } });
    expect(response.status).toBe(401);
  });

  test('without PLATFORM_TOKEN the whole /platform API answers 404 not_found', async () => {
    const disabled = await startTestApp({ config: { platformToken: undefined } });
    try {
      const created = await disabled.client(TEST_PLATFORM_TOKEN).POST('/platform/v1/projects', { body: { name: 'x' } });
      expect(created.response.status).toBe(404);
      expect(created.error!.error.code).toBe('not_found');
      const read = await disabled.client().GET('/platform/v1/projects/{id}', { params: { path: { id: 'proj_x' } } });
      expect(read.response.status).toBe(404);
    } finally {
      await disabled.close();
    }
  });
});
