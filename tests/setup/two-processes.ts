import { createProject, type CreatedProject } from '../factories/project.factory.js';
import { startTestApp, type TestApp } from './test-app.js';
import { SYNC_CHANNEL } from '../../src/shared/change-feed.js';
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
 * Runs `work` while `app`'s change feed holds back every table notification (as if they arrived late), so only the
 * process's own in-process invalidation can make its caches stale; the feed still counts as listening. Its syncs
 * (ChangeFeed.sync) are held back with them, as they would be: notifications arrive in commit order, so a sync's own
 * notification cannot overtake the table notifications before it. Both are delivered, in order, when `work` ends.
 */
export async function withTableNotificationsHeld<T>(app: TestApp, work: () => Promise<T>): Promise<T> {
  const feed = app.deps.authCache!.feed as unknown as { handlers: Map<string, Array<(payload: string) => void>> };
  const held: Array<() => void> = [];
  const channels = [TABLE_CHANGED, SYNC_CHANNEL];
  const handlers = channels.map((channel) => feed.handlers.get(channel) ?? []);
  channels.forEach((channel, i) =>
    feed.handlers.set(channel, [(payload) => held.push(() => handlers[i].forEach((handler) => handler(payload)))]),
  );
  try {
    return await work();
  } finally {
    channels.forEach((channel, i) => feed.handlers.set(channel, handlers[i]));
    for (const deliver of held) deliver();
  }
}
