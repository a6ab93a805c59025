/**
 * Security checks (SECURITY.md): a broad run of requests (keys, logins and lockout, token refresh,
 * password reset and change, webhooks with a real signed delivery, e-mail over SMTP, errors of every kind and an
 * unexpected 500) with every log line recorded; then every answer (body and headers) and every log line is scanned
 * for the secrets the run used or produced and for stack traces. A secret may appear only in the one answer that
 * documents handing it out (key creation, a webhook's secret, token issuance; the operator's outbox for a reset
 * link), and never in a log line. Every answer carries the security headers.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AppDeps } from '../../../src/app-deps.js';
import { sendEmailJob } from '../../../src/modules/platform/send-email.job.js';
import { deliverWakeUps } from '../../../src/modules/webhooks/deliver.js';
import { OutboundAgent } from '../../../src/shared/outbound.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { createProject, type CreatedProject } from '../../factories/project.factory.js';
import { createWebhook } from '../../factories/webhook.factory.js';
import { startSmtpServer, type TestSmtpServer } from '../../setup/smtp.js';
import { TEST_PLATFORM_TOKEN } from '../../setup/test-app.js';
import { WebhookReceiver } from '../../setup/webhook-receiver.js';
import { useApp } from '../../setup/store.js';

type Json = any;

/** Every answer the run saw, with the request id that joins it to its access-log line (and so its operation). */
interface Seen {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string>;
  text: string;
}
const answers: Seen[] = [];
const logLines: string[] = [];
const realFetch = globalThis.fetch;

const PASSWORDS = {
  registered: 'Winter-Trail-2026',
  wrong: 'Wrong-Guess-Pass-1',
  weak: 'short',
  reset: 'Spring-Trail-2027',
  changed: 'Autumn-Trail-2028',
};
const SMTP_PASSWORD = 'smtp-pass-Zq8vX2';
/** The request that met an unexpected error: its log line is the one allowed to name a source location (for the operator). */
let unexpectedErrorRequestId = '';

let smtp: TestSmtpServer;
let receiver: WebhookReceiver;
let agent: OutboundAgent;
let store: CreatedProject;
/** Secrets and where each may be seen: the operations whose answer documents handing it out. */
const secrets: Array<{ what: string; value: string; allowedIn: string[] }> = [];
const remember = (what: string, value: string | undefined | null, allowedIn: string[] = []) => {
  if (value) secrets.push({ what, value, allowedIn });
};

async function call(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Json,
): Promise<{ status: number; json: Json; requestId: string }> {
  const response = await fetch(app.baseUrl + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text.startsWith('{') ? JSON.parse(text) : text,
    requestId: response.headers.get('x-request-id')!,
  };
}

beforeAll(async () => {
  // Record every answer, whoever sends the request (the SDK clients included: they take fetch when made).
  globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const request =
      input instanceof Request
        ? { url: input.url, method: input.method }
        : { url: String(input), method: init?.method ?? 'GET' };
    const response = await realFetch(input, init);
    if (request.url.startsWith('http://127.0.0.1')) {
      answers.push({
        method: request.method,
        url: request.url,
        status: response.status,
        headers: Object.fromEntries(response.headers.entries()),
        text: await response.clone().text(),
      });
    }
    return response;
  };
  smtp = await startSmtpServer({ acceptLogins: true });
});
const logTo = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
const app = useApp(() => ({
  logTo,
  config: {
    logLevel: 'debug',
    smtpUrl: smtp.url.replace('smtp://', `smtp://mailer:${SMTP_PASSWORD}@`),
    allowPrivateNetworkTargets: true,
  },
  handlers: {
    listLocations: async () => {
      throw new Error('the database said something unexpected');
    },
  },
}));
beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  agent = new OutboundAgent({ ca: receiver.cert });
  remember('platform token', TEST_PLATFORM_TOKEN);
  remember('SMTP password', SMTP_PASSWORD);
  for (const [what, value] of Object.entries(PASSWORDS)) remember(`password (${what})`, value);
  await exercise();
  await collectStoredSecrets();
}, 60_000);
afterAll(async () => {
  globalThis.fetch = realFetch;
  await smtp?.close();
  await receiver?.close();
  await agent?.close();
});

/** The broad run: every kind of secret handed out, used, mistyped and refused. */
async function exercise(): Promise<void> {
  store = await createProject(app, { domain: 'secure-shop.example.com', contact_email: 'ops@secure-shop.example.com' });
  for (const [name, key] of Object.entries(store.keys)) remember(`API key ${name}`, key.token, ['createProject']);
  const secret = { Authorization: `Bearer ${store.keys.secret_test.token}` };
  const shop = { 'X-API-Key': store.keys.publishable_test.token };
  const platform = { Authorization: `Bearer ${TEST_PLATFORM_TOKEN}` };

  // Keys: created, used, revoked, mistyped, and used where they do not belong.
  const created = await call('POST', `/platform/v1/projects/${store.project.id}/keys`, platform, {
    type: 'secret',
    mode: 'live',
  });
  expect(created.status).toBe(201);
  remember('created API key', created.json.data.token, ['createApiKey']);
  expect((await call('GET', '/v1/customers', { Authorization: `Bearer ${created.json.data.token}` })).status).toBe(200);
  expect((await call('DELETE', `/platform/v1/keys/${created.json.data.id}`, platform)).status).toBe(204);
  expect((await call('GET', '/v1/customers', { Authorization: `Bearer ${created.json.data.token}` })).status).toBe(401);
  const token = store.keys.secret_test.token;
  const mistyped = `${token.slice(0, -1)}${token.endsWith('X') ? 'Y' : 'X'}`; // always another last character
  remember('mistyped API key', mistyped);
  expect((await call('GET', '/v1/customers', { Authorization: `Bearer ${mistyped}` })).status).toBe(401);
  expect(
    (await call('GET', '/v1/customers', { Authorization: `Bearer ${store.keys.secret_test.token}-tail` })).status,
  ).toBe(401);
  expect(
    (await call('GET', '/v1/customers', { Authorization: `Bearer ${store.keys.publishable_test.token}` })).status,
  ).toBe(403);
  expect(
    (
      await call('GET', `/platform/v1/projects/${store.project.id}`, {
        Authorization: `Bearer ${TEST_PLATFORM_TOKEN}x`,
      })
    ).status,
  ).toBe(401);
  remember('mistyped platform token', `${TEST_PLATFORM_TOKEN}x`);

  // Customers: register, a weak password, wrong passwords up to the lockout, login, refresh, logout.
  const email = 'casey.secure@example.com';
  expect(
    (
      await call('POST', '/v1/auth/register', shop, {
        email: 'weak@example.com',
        password: PASSWORDS.weak,
        first_name: 'W',
        last_name: 'K',
      })
    ).status,
  ).toBe(400);
  const registered = await call('POST', '/v1/auth/register', shop, {
    email,
    password: PASSWORDS.registered,
    first_name: 'Casey',
    last_name: 'Secure',
  });
  expect(registered.status).toBe(201);
  const issued = ['registerCustomer', 'loginCustomer', 'refreshCustomerToken'];
  remember('access token (register)', registered.json.data.access_token, issued);
  remember('refresh token (register)', registered.json.data.refresh_token, issued);
  for (let i = 0; i < 6; i++) await call('POST', '/v1/auth/login', shop, { email, password: PASSWORDS.wrong });
  expect((await call('POST', '/v1/auth/login', shop, { email, password: PASSWORDS.registered })).status).toBe(429);
  await app.deps.db.loginThrottle.updateMany({
    where: { projectId: store.project.id },
    data: { lockedUntil: new Date(Date.now() - 1000) },
  });
  const login = await call('POST', '/v1/auth/login', shop, { email, password: PASSWORDS.registered });
  expect(login.status).toBe(200);
  remember('access token (login)', login.json.data.access_token, issued);
  remember('refresh token (login)', login.json.data.refresh_token, issued);
  const me = { ...shop, Authorization: `Bearer ${login.json.data.access_token}` };
  expect((await call('GET', '/v1/me', me)).status).toBe(200);
  expect((await call('PATCH', '/v1/me', me, { first_name: 'Casey-Ann' })).status).toBe(200);
  const refreshed = await call('POST', '/v1/auth/token', shop, { refresh_token: login.json.data.refresh_token });
  expect(refreshed.status).toBe(200);
  remember('access token (refresh)', refreshed.json.data.access_token, issued);
  remember('refresh token (refresh)', refreshed.json.data.refresh_token, issued);
  // The used refresh token again: reuse ends the session (401).
  expect((await call('POST', '/v1/auth/token', shop, { refresh_token: login.json.data.refresh_token })).status).toBe(
    401,
  );
  expect(
    (await call('GET', '/v1/me', { ...shop, Authorization: `Bearer ${refreshed.json.data.access_token}` })).status,
  ).toBe(401);
  expect((await call('GET', '/v1/me', { ...shop, Authorization: 'Bearer not.a.jwt' })).status).toBe(401);
  expect(
    (await call('POST', '/v1/auth/logout', shop, { refresh_token: registered.json.data.refresh_token })).status,
  ).toBe(204);

  // Password reset: the e-mail (outbox and SMTP), a wrong token, the reset, then a change of password.
  expect((await call('POST', '/v1/auth/forgot-password', shop, { email })).status).toBe(200);
  const outbox = await call(
    'GET',
    `/platform/v1/projects/${store.project.id}/outbox?to=${encodeURIComponent(email)}`,
    platform,
  );
  const resetToken = outbox.json.data[0].data.token as string;
  remember('password reset token', resetToken, ['listOutboxEmails']);
  const [job] = await app.deps.db.$queryRaw<
    Array<{ data: { v: 1; emailId: string } }>
  >`SELECT data FROM pgboss.job WHERE name = 'send-email' ORDER BY created_on DESC LIMIT 1`;
  await sendEmailJob.handle(app.deps, job.data);
  await smtp.waitFor(1);
  expect(
    (
      await call('POST', '/v1/auth/reset-password', shop, {
        token: `${resetToken.slice(0, -2)}xx`,
        password: PASSWORDS.reset,
      })
    ).status,
  ).toBe(400);
  expect(
    (await call('POST', '/v1/auth/reset-password', shop, { token: resetToken, password: PASSWORDS.weak })).status,
  ).toBe(400);
  expect(
    (await call('POST', '/v1/auth/reset-password', shop, { token: resetToken, password: PASSWORDS.reset })).status,
  ).toBe(200);
  const again = await call('POST', '/v1/auth/login', shop, { email, password: PASSWORDS.reset });
  expect(again.status).toBe(200);
  remember('access token (after reset)', again.json.data.access_token, issued);
  remember('refresh token (after reset)', again.json.data.refresh_token, issued);
  const changed = await call(
    'POST',
    '/v1/me/password',
    { ...shop, Authorization: `Bearer ${again.json.data.access_token}` },
    { current_password: PASSWORDS.reset, new_password: PASSWORDS.changed },
  );
  expect(changed.status).toBe(200);
  remember('access token (password change)', changed.json.data?.access_token, ['changeCurrentCustomerPassword']);
  remember('refresh token (password change)', changed.json.data?.refresh_token, ['changeCurrentCustomerPassword']);

  // Webhooks: the secret once at creation, then reads, an update and a real signed delivery to a local receiver.
  const api = app.client(store.keys.secret_test.token);
  const webhook = await createWebhook(api, receiver.url('/hook'), { events: ['customer.created'] });
  remember('webhook secret', webhook.secret, ['createWebhook']);
  expect((await call('GET', `/v1/webhooks/${webhook.id}`, secret)).status).toBe(200);
  expect((await call('GET', '/v1/webhooks', secret)).status).toBe(200);
  expect(
    (await call('PATCH', `/v1/webhooks/${webhook.id}`, secret, { events: ['customer.created', 'customer.updated'] }))
      .status,
  ).toBe(200);
  await createCustomer(api, { email: 'hooked@example.com' });
  const [delivery] = await app.deps.db.webhookDelivery.findMany({ where: { subscriptionId: webhook.id } });
  const deps: AppDeps = { ...app.deps, outbound: agent };
  await deliverWakeUps(deps, [{ v: 1, deliveryId: delivery.id }]);
  expect(receiver.received.length).toBe(1);
  expect((await call('GET', `/v1/webhooks/${webhook.id}/deliveries`, secret)).status).toBe(200);

  // Errors: unknown path and method, malformed JSON, validation, not found, conflict, bad cursor, an unexpected 500.
  expect((await call('GET', '/v1/nowhere', secret)).status).toBe(404);
  expect((await call('PUT', '/v1/customers', secret)).status).toBe(405);
  expect((await call('POST', '/v1/customers', secret, '{"email": ')).status).toBe(400);
  expect((await call('POST', '/v1/customers', secret, { email: 'not-an-email', first_name: 7 })).status).toBe(400);
  expect((await call('GET', '/v1/customers/cus_00000000000000000000000000', secret)).status).toBe(404);
  expect(
    (await call('POST', '/v1/customers', secret, { email: 'hooked@example.com', first_name: 'Hook', last_name: 'Ed' }))
      .status,
  ).toBe(409);
  expect((await call('GET', '/v1/customers?cursor=forged.cursor', secret)).status).toBe(400);
  // An unexpected error (the handler of GET /v1/locations throws, see useApp above): 500 without details.
  const failed = await call('GET', '/v1/locations', secret);
  expect(failed.status).toBe(500);
  unexpectedErrorRequestId = failed.requestId;
}

/** The stored forms, which must never leave the database: hashes, the project's signing secret. */
async function collectStoredSecrets(): Promise<void> {
  const rows = await app.deps.db.$queryRaw<Array<{ what: string; value: string }>>`
    SELECT 'argon2 password hash' AS what, password_hash AS value FROM customers WHERE password_hash IS NOT NULL
    UNION ALL SELECT 'API key hash', token_hash FROM api_keys
    UNION ALL SELECT 'refresh token hash', token_hash FROM refresh_tokens
    UNION ALL SELECT 'reset token hash', token_hash FROM password_reset_tokens
    UNION ALL SELECT 'project signing secret', signing_secret FROM projects`;
  expect(rows.filter((r) => r.what === 'argon2 password hash').length).toBeGreaterThan(0);
  for (const row of rows) remember(row.what, row.value);
}

/** The operation of an answer, from the access log line with its request id. */
function operationOf(answer: Seen): string | undefined {
  const id = answer.headers['x-request-id'];
  const line = logLines.map((l) => JSON.parse(l)).find((l) => l.message === 'request' && l.requestId === id);
  return line?.operation;
}

const STACK = [/\n\s+at\s/, /\bat\s+\S+\s+\(?\/[^)]*:\d+:\d+\)?/, /\.ts:\d+/, /node_modules\//];

describe('secrets and stack traces', () => {
  test('the run exercised what it claims (answers, log lines, secrets)', () => {
    console.log(`security scan: ${answers.length} answers, ${logLines.length} log lines, ${secrets.length} secrets`);
    expect(answers.length).toBeGreaterThan(40);
    expect(logLines.length).toBeGreaterThan(40);
    expect(secrets.length).toBeGreaterThan(25);
  });

  test('no log line carries a secret, an argon2 hash or a stack trace', () => {
    const found: string[] = [];
    for (const line of logLines) {
      for (const s of secrets) if (line.includes(s.value)) found.push(`${s.what} in log line ${line.slice(0, 300)}`);
      if (line.includes('$argon2')) found.push(`argon2 hash in log line ${line.slice(0, 300)}`);
      const unexpected =
        JSON.parse(line).requestId === unexpectedErrorRequestId && /"message":"unhandled error"/.test(line);
      if (!unexpected && STACK.some((pattern) => pattern.test(line)))
        found.push(`stack trace in log line ${line.slice(0, 300)}`);
    }
    expect(found).toEqual([]);
  });

  test('an unexpected error is logged once with its message and where it was thrown, without a stack, and answered 500 without details', () => {
    const lines = logLines.filter(
      (line) => line.includes(unexpectedErrorRequestId) && line.includes('unhandled error'),
    );
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]) as { error: string; origin: string };
    expect(entry.error).toMatch(/^\w*Error: ./);
    expect(entry.origin).toMatch(/^[\w./-]+\.(ts|js):\d+$/); // one location in the server's code
    expect(lines[0]).not.toMatch(/\n\s+at\s|\\n\s+at\s/); // no frames after it
    expect(lines[0]).not.toMatch(/node_modules\//);
  });

  test('no answer carries a secret outside the one operation that documents handing it out, a hash or a stack trace', () => {
    const found: string[] = [];
    for (const answer of answers) {
      const seen = `${JSON.stringify(answer.headers)}\n${answer.text}`;
      const operation = operationOf(answer);
      for (const s of secrets) {
        if (seen.includes(s.value) && !(operation && s.allowedIn.includes(operation)))
          found.push(`${s.what} in ${answer.method} ${answer.url} (${operation}) ${answer.status}`);
      }
      if (seen.includes('$argon2')) found.push(`argon2 hash in ${answer.method} ${answer.url}`);
      if (STACK.some((pattern) => pattern.test(answer.text)))
        found.push(`stack trace in ${answer.method} ${answer.url}: ${answer.text.slice(0, 200)}`);
    }
    expect(found).toEqual([]);
  });

  test('each handed-out secret is in exactly one answer: the one that handed it out', () => {
    const counts = secrets
      .filter((s) => s.allowedIn.length > 0)
      .map((s) => ({ what: s.what, answers: answers.filter((a) => a.text.includes(s.value)).length }));
    expect(counts.filter((c) => c.answers !== 1)).toEqual([]);
  });
});

describe('security headers on every answer', () => {
  test('X-Content-Type-Options: nosniff and no X-Powered-By on every answer; Cache-Control: no-store on every authenticated one', () => {
    const wrong: string[] = [];
    for (const answer of answers) {
      const where = `${answer.method} ${answer.url} ${answer.status}`;
      if (answer.headers['x-content-type-options'] !== 'nosniff')
        wrong.push(`${where}: X-Content-Type-Options ${answer.headers['x-content-type-options']}`);
      if ('x-powered-by' in answer.headers) wrong.push(`${where}: X-Powered-By`);
      if (answer.headers['cache-control'] !== 'no-store')
        wrong.push(`${where}: Cache-Control ${answer.headers['cache-control']}`);
    }
    expect(wrong).toEqual([]);
  });

  test('the public documents: /docs and /openapi.* are no-cache (revalidated by ETag) and nosniff; the docs assets are cacheable for a day', async () => {
    const expected = { '/docs': 'no-cache', '/openapi.yaml': 'no-cache', '/openapi.json': 'no-cache' };
    for (const path of ['/docs', '/openapi.yaml', '/openapi.json', '/healthz', '/v1/nowhere']) {
      const response = await realFetch(app.baseUrl + path);
      expect({
        path,
        status: response.status < 500,
        nosniff: response.headers.get('x-content-type-options'),
        cache: response.headers.get('cache-control'),
      }).toEqual({
        path,
        status: true,
        nosniff: 'nosniff',
        cache: expected[path as keyof typeof expected] ?? 'no-store',
      });
    }
    const asset = await realFetch(`${app.baseUrl}/docs/assets/swagger-ui.css`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    expect(asset.headers.get('content-type')).toMatch(/^text\/css/);
  });

  test('the CORS preflight of a storefront operation carries them too', async () => {
    const response = await realFetch(`${app.baseUrl}/v1/auth/login`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-powered-by')).toBeNull();
  });
});
