import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createCommerceClient } from '@commerce-api/sdk';
import { Agent, fetch } from 'undici';
import { createProject } from '../../factories/project.factory.js';
import { createTestDatabase } from '../../setup/database.js';
import { fetchRetrying503, startHaproxy, type RunningHaproxy } from '../../setup/haproxy.js';
import { startNginx } from '../../setup/nginx.js';
import { startMain, type Cleanups } from '../../setup/process.js';
import type { TestApp } from '../../setup/test-app.js';
import { eventually } from '../../setup/wait.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PLATFORM_TOKEN = 'trusted-proxy-platform-token-0123456789';

/** A client on its own loopback address (Linux routes all of 127.0.0.0/8 to lo). */
const from = (address: string) => {
  const agent = new Agent({ localAddress: address });
  cleanups.push(() => agent.close());
  return agent;
};

const balancers: Array<[string, (servers: Array<{ name: string; port: number }>) => Promise<RunningHaproxy>]> = [
  ['HAProxy (option forwardfor)', startHaproxy],
  ['nginx (proxy_add_x_forwarded_for)', startNginx],
];

describe.each(balancers)('TRUST_PROXY=<the balancer> behind docs/deploy.md’s %s', (_name, startBalancer) => {
  test('each client has its own sign-in budget; a made-up X-Forwarded-For escapes it neither through the balancer nor sent straight to the API; /metrics is not served through the balancer', async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'trusted-proxy-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const api = await startMain(
      {
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        PLATFORM_TOKEN,
        // HAProxy reaches the API from 127.0.0.1; the clients come from other loopback addresses.
        TRUST_PROXY: '127.0.0.1',
        METRICS_TOKEN: 'trusted-proxy-metrics-token-0123',
        RESPONSE_CHECK: 'true',
      },
      cleanups,
    );
    const haproxy = await startBalancer([{ name: 'api1', port: Number(new URL(api.baseUrl).port) }]);
    cleanups.push(() => haproxy.stop());
    const ready = await eventually(async () => (await fetch(`${haproxy.baseUrl}/readyz`)).status === 200, {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect([ready, haproxy.output()]).toEqual([true, expect.anything()]);

    const platform = createCommerceClient({
      baseUrl: haproxy.baseUrl,
      apiKey: PLATFORM_TOKEN,
      fetch: fetchRetrying503,
    });
    const store = await createProject(
      { platform } as TestApp,
      {},
      {
        rate_limit_per_minute: 1_000,
        auth_attempts_per_ip_per_minute: 3,
        auth_attempts_per_email_per_minute: 1_000,
      },
    );
    // The budget is per minute: the test's requests share one window.
    const left = 60 - new Date().getUTCSeconds();
    if (left < 20) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 50));

    const login = async (baseUrl: string, agent: Agent, forwardedFor?: string) => {
      const response = await fetch(`${baseUrl}/v1/auth/login`, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'X-API-Key': store.keys.publishable_test.token,
          'Content-Type': 'application/json',
          ...(forwardedFor && { 'X-Forwarded-For': forwardedFor }),
        },
        body: JSON.stringify({ email: 'nobody@example.com', password: 'wrong-password' }),
      });
      const body = (await response.json()) as { error: { code: string } };
      return `${response.status} ${body.error.code}`;
    };
    const [a, b] = [from('127.0.0.2'), from('127.0.0.3')];
    for (let n = 0; n < 3; n++) expect(await login(haproxy.baseUrl, a)).toBe('401 unauthorized');
    expect(await login(haproxy.baseUrl, a)).toBe('429 rate_limited');
    // A made-up header through the balancer: HAProxy appends the real address, which is the one believed.
    expect(await login(haproxy.baseUrl, a, '198.51.100.7')).toBe('429 rate_limited');
    // Another client behind the same balancer has its own budget.
    expect(await login(haproxy.baseUrl, b)).toBe('401 unauthorized');
    // Straight to the API from an address that is not the balancer's: its header is not believed.
    expect(await login(api.baseUrl, a, '198.51.100.8')).toBe('429 rate_limited');

    // /metrics: refused by the balancer even with the token, served on the API's own address with it.
    const metricsToken = { authorization: 'Bearer trusted-proxy-metrics-token-0123' };
    const viaBalancer = await fetch(`${haproxy.baseUrl}/metrics`, { headers: metricsToken });
    expect(viaBalancer.status).toBe(404);
    await viaBalancer.arrayBuffer();
    const direct = await fetch(`${api.baseUrl}/metrics`, { headers: metricsToken });
    expect(direct.status).toBe(200);
    await direct.arrayBuffer();
  }, 120_000);
});
