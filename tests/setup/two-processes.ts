import { createProject, type CreatedProject } from '../factories/project.factory.js';
import { startTestApp, type TestApp } from './test-app.js';
import { TABLE_CHANGED } from '../../src/shared/table-versions.js';

/**
 * Two server processes on one database (b joins a's) and a project created through a: the setup of the
 * cross-process cache tests. `close` stops both.
 */
export async function startTwoProcesses(): Promise<{
  a: TestApp;
  b: TestApp;
  store: CreatedProject;
  close: () => Promise<void>;
}> {
  const a = await startTestApp();
  const b = await startTestApp({ databaseUrl: a.deps.config.databaseUrl });
  const store = await createProject(a);
  return {
    a,
    b,
    store,
    close: async () => {
      await b.close();
      await a.close();
    },
  };
}

/**
 * Runs `work` while `app`'s change feed drops every table notification (as if they arrived late), so only the
 * process's own in-process invalidation can make its caches stale; the feed still counts as listening.
 */
export async function withTableNotificationsHeld<T>(app: TestApp, work: () => Promise<T>): Promise<T> {
  const feed = app.deps.authCache!.feed as unknown as { handlers: Map<string, unknown[]> };
  const handlers = feed.handlers.get(TABLE_CHANGED)!;
  feed.handlers.set(TABLE_CHANGED, []);
  try {
    return await work();
  } finally {
    feed.handlers.set(TABLE_CHANGED, handlers);
  }
}
