import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createProject } from '../../factories/project.factory.js';
import { startTestApp, type TestApp } from '../../setup/test-app.js';

// Two app instances on one database stand for two server processes, each with its own key cache.
let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  a = await startTestApp();
  b = await startTestApp({ databaseUrl: a.deps.config.databaseUrl });
});
afterAll(async () => {
  await b.close();
  await a.close();
});

async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
const status = async (app: TestApp, token: string) => (await app.client(token).GET('/v1/events')).response.status;

describe('cached authentication', () => {
  test('a key revoked through one process is refused by another that had it cached', async () => {
    const { keys } = await createProject(a);
    const token = keys.secret_test.token;
    expect(await status(b, token)).toBe(200); // now cached in b
    expect(await status(b, token)).toBe(200);
    await a.platform.DELETE('/platform/v1/keys/{id}', { params: { path: { id: keys.secret_test.id } } });
    expect(await status(a, token)).toBe(401); // the revoking process: at once
    expect(await eventually(async () => (await status(b, token)) === 401)).toBe(true);
  });

  test('suspending a project through one process is seen by another that had its keys cached', async () => {
    const { project, keys } = await createProject(a);
    expect(await status(b, keys.secret_live.token)).toBe(200);
    await a.platform.PATCH('/platform/v1/projects/{id}', { params: { path: { id: project.id } }, body: { suspended: true } });
    expect(await status(a, keys.secret_live.token)).toBe(403);
    expect(await eventually(async () => (await status(b, keys.secret_live.token)) === 403)).toBe(true);
  });

  test('when its listener connection is lost the cache is bypassed: a change made behind its back is seen at once', async () => {
    const { keys } = await createProject(a);
    const token = keys.secret_test.token;
    expect(await status(b, token)).toBe(200);
    await b.deps.db.$executeRaw`
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`;
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Revoked directly in the database: no notification at all.
    await a.deps.db.apiKey.update({ where: { id: keys.secret_test.id }, data: { revokedAt: new Date() } });
    expect(await status(b, token)).toBe(401);
  });
});
