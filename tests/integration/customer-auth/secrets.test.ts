import { Writable } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import { useStore } from '../../setup/store.js';

const logLines: string[] = [];
// Every log line of the app (the JSON lines it writes to stderr), at the most talkative level.
const logTo = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
const store = useStore({ project: { domain: 'secrets.example.com' }, app: { config: { logLevel: 'debug' }, logTo } });
const { app } = store;

const PASSWORDS = {
  registered: 'Winter-Trail-2026',
  wrong: 'Guess-Trail-1999',
  weak: 'weakweakweak',
  reset: 'Spring-Trail-2027',
  changed: 'Autumn-Trail-2028',
  malformed: 'Pw-Secret9',
  malformedLong: 'Unquoted-Secret-77',
};

describe('secrets stay secret', () => {
  test('no response or log line of the whole customer-auth flow contains a password, a password hash or a token hash', async () => {
    const answers: string[] = [];
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
      raw?: string,
    ) => {
      const response = await fetch(`${app.baseUrl}${path}`, {
        method,
        headers: { 'X-API-Key': store.keys.publishable_test.token, 'Content-Type': 'application/json', ...headers },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      const text = await response.text();
      answers.push(`${response.status} ${JSON.stringify([...response.headers])} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    const email = 'secretive@example.com';
    const registered = (
      await call('POST', '/v1/auth/register', {
        email,
        password: PASSWORDS.registered,
        first_name: 'S',
        last_name: 'C',
      })
    ).data;
    await call('POST', '/v1/auth/register', { email, password: PASSWORDS.registered, first_name: 'S', last_name: 'C' });
    await call('POST', '/v1/auth/login', { email, password: PASSWORDS.wrong });
    const login = (await call('POST', '/v1/auth/login', { email, password: PASSWORDS.registered })).data;
    // V8 quotes (part of) the text it cannot parse in its message; none of it may reach the answer.
    await call('POST', '/v1/auth/login', undefined, {}, `{"password":${PASSWORDS.malformed}}`);
    await call(
      'POST',
      '/v1/auth/login',
      undefined,
      {},
      `{"email": "${email}", "password": ${PASSWORDS.malformedLong}}`,
    );
    const refreshed = (await call('POST', '/v1/auth/token', { refresh_token: login.refresh_token })).data;
    await call('POST', '/v1/auth/token', { refresh_token: login.refresh_token });
    await call('POST', '/v1/auth/logout', { refresh_token: refreshed.refresh_token });
    await call('POST', '/v1/auth/forgot-password', { email });
    const outbox = await app.deps.db.outboxEmail.findFirstOrThrow({
      where: { projectId: store.project.id, to: { has: email } },
    });
    const resetToken = (outbox.data as { token: string }).token;
    await call('POST', '/v1/auth/reset-password', { token: resetToken, password: PASSWORDS.weak });
    await call('POST', '/v1/auth/reset-password', { token: resetToken, password: PASSWORDS.reset });
    const fresh = (await call('POST', '/v1/auth/login', { email, password: PASSWORDS.reset })).data;
    const bearer = { Authorization: `Bearer ${fresh.access_token}` };
    await call('GET', '/v1/me', undefined, bearer);
    await call('PATCH', '/v1/me', { first_name: 'Secret' }, bearer);
    await call(
      'POST',
      '/v1/me/password',
      { current_password: PASSWORDS.wrong, new_password: PASSWORDS.changed },
      bearer,
    );
    await call(
      'POST',
      '/v1/me/password',
      { current_password: PASSWORDS.reset, new_password: PASSWORDS.changed },
      bearer,
    );
    expect(registered.customer.email).toBe(email);

    const customer = await app.deps.db.customer.findUniqueOrThrow({ where: { id: registered.customer.id } });
    const tokenHashes = [
      ...(await app.deps.db.refreshToken.findMany({ select: { tokenHash: true } })).map((r) => r.tokenHash),
      ...(await app.deps.db.passwordResetToken.findMany({ select: { tokenHash: true } })).map((r) => r.tokenHash),
    ];
    expect(tokenHashes.length).toBeGreaterThanOrEqual(5);
    const secrets = [...Object.values(PASSWORDS), 'Unquoted-S', customer.passwordHash!, '$argon2', ...tokenHashes];
    expect(logLines.length).toBeGreaterThan(15);
    for (const text of [...answers, ...logLines]) {
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
    expect(answers.some((a) => a.startsWith('400') && a.includes('not valid JSON'))).toBe(true);
  });
});
