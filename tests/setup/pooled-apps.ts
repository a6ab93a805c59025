import { afterAll, beforeAll } from '@jest/globals';
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
