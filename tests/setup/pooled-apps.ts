import { afterAll, beforeAll, expect } from '@jest/globals';
import { createProject, type CreatedProject } from '../factories/project.factory.js';
import { createTestDatabase } from './database.js';
import { startPgBouncer, type RunningPgBouncer } from './pgbouncer.js';
import { startTestApp, type TestApp } from './test-app.js';

/** Two app processes and a project made through the first, filled in by the file's beforeAll. */
export interface PooledApps {
  a: TestApp;
  b: TestApp;
  store: CreatedProject;
}

/**
 * Two app processes on one fresh database through PgBouncer in transaction mode with a server pool of 3 (so
 * concurrent requests meet on the pooler), and a project with `settings`; all torn down after the file's tests.
 */
export function usePooledApps(settings: Record<string, unknown>): PooledApps {
  const apps = {} as PooledApps;
  let bouncer: RunningPgBouncer | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    bouncer = await startPgBouncer(process.env.TEST_ADMIN_URL!, { poolSize: 3 });
    const pooled = bouncer.url(database.directUrl);
    const config = { databaseUrl: pooled, databaseDirectUrl: database.directUrl };
    apps.a = await startTestApp({ databaseUrl: pooled, config });
    apps.b = await startTestApp({ databaseUrl: pooled, config });
    apps.store = await createProject(apps.a, settings);
  }, 60_000);
  afterAll(async () => {
    await apps.b?.close();
    await apps.a?.close();
    await bouncer?.stop();
    await database?.drop();
  });
  return apps;
}

/**
 * `send`'s answer once it is not a 503. A 503 `service_unavailable` is what openapi.yaml's ServiceUnavailable
 * promises when no pooled connection became free within 5 s (25 completions per process that queue on one row's
 * lock can take that long on a loaded machine): nothing was written, so it is sent again after its Retry-After, as
 * the contract tells a client to. A 503 with another code fails the test; a fifth in a row is returned to it.
 */
export async function sentUntilServed<T extends { response: Response; error?: unknown }>(
  send: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await send();
    if (answer.response.status !== 503 || attempt === 5) return answer;
    expect(answer.error).toMatchObject({ error: { code: 'service_unavailable' } });
    const retryAfter = Number(answer.response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  }
}
