import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ensureDemoProject, type DemoFile } from '../../../src/demo.js';
import { signedIn, storefront } from '../../factories/customer-auth.factory.js';
import { useApp } from '../../setup/store.js';

// The storefront's whole customer-auth flow, on the demo project a first start creates (verified domain
// demo-store.example.com).
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'demo-flow-'));
const app = useApp({ config: { dataDir } });
let demo: DemoFile;
// The demo catalog takes a while to create (about 500 writes).
beforeAll(async () => {
  demo = (await ensureDemoProject(app.deps))!;
}, 120_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('customer auth on the demo project', () => {
  test('register, login, /v1/me, refresh (the old token refused and ending the new one), forgot and reset (ending earlier sessions)', async () => {
    const key = demo.keys.publishable_live.token;
    const shop = storefront(app, key);
    const email = 'demo.shopper@example.com';
    const registered = await shop.POST('/v1/auth/register', {
      body: { email, password: 'Winter-Trail-2026', first_name: 'Demo', last_name: 'Shopper' },
    });
    expect(registered.response.status).toBe(201);

    const login = (await shop.POST('/v1/auth/login', { body: { email, password: 'Winter-Trail-2026' } })).data!.data;
    const me = await signedIn(app, key, login.access_token).GET('/v1/me');
    expect(me.data!.data).toMatchObject({ email, first_name: 'Demo', email_verified: false });

    const refreshed = (await shop.POST('/v1/auth/token', { body: { refresh_token: login.refresh_token } })).data!.data;
    expect((await shop.POST('/v1/auth/token', { body: { refresh_token: login.refresh_token } })).response.status).toBe(
      401,
    );
    expect(
      (await shop.POST('/v1/auth/token', { body: { refresh_token: refreshed.refresh_token } })).response.status,
    ).toBe(401);

    const second = (await shop.POST('/v1/auth/login', { body: { email, password: 'Winter-Trail-2026' } })).data!.data;
    expect((await shop.POST('/v1/auth/forgot-password', { body: { email } })).response.status).toBe(200);
    const outbox = await app.platform.GET('/platform/v1/projects/{id}/outbox', {
      params: { path: { id: demo.project_id }, query: { to: email } },
    });
    const [resetEmail] = outbox.data!.data;
    expect(resetEmail.data.reset_url).toMatch(/^https:\/\/demo-store\.example\.com\/account\/reset-password\?token=/);
    const reset = await shop.POST('/v1/auth/reset-password', {
      body: { token: resetEmail.data.token as string, password: 'Spring-Trail-2027' },
    });
    expect(reset.response.status).toBe(200);
    expect((await shop.POST('/v1/auth/token', { body: { refresh_token: second.refresh_token } })).response.status).toBe(
      401,
    );
    expect((await signedIn(app, key, second.access_token).GET('/v1/me')).response.status).toBe(401);
    expect(
      (await shop.POST('/v1/auth/login', { body: { email, password: 'Spring-Trail-2027' } })).response.status,
    ).toBe(200);
  });

  test('six wrong passwords in a row: the fifth answers 401, the sixth 429 with Retry-After about 60', async () => {
    const shop = storefront(app, demo.keys.publishable_test.token);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let n = 1; n <= 6; n++) {
      const { response } = await shop.POST('/v1/auth/login', {
        body: { email: 'guessed@example.com', password: 'Wrong-Password-1' },
      });
      statuses.push(response.status);
      retryAfter = response.headers.get('Retry-After');
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(55);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  });

  test('OPTIONS /v1/auth/login with Origin and Access-Control-Request-Headers gets the CORS answer; OPTIONS /v1/customers does not', async () => {
    const headers = {
      Origin: 'https://demo-store.example.com',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'x-api-key, content-type',
    };
    const login = await fetch(`${app.baseUrl}/v1/auth/login`, { method: 'OPTIONS', headers });
    expect(login.status).toBe(204);
    expect(login.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const customers = await fetch(`${app.baseUrl}/v1/customers`, { method: 'OPTIONS', headers });
    expect(customers.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });
});
