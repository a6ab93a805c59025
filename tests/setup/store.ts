import { afterAll, beforeAll } from '@jest/globals';
import type { CommerceClient, components } from '@commerce-api/sdk';
import { createProject, type CreatedProject } from '../factories/project.factory.js';
import { startTestApp, type TestApp } from './test-app.js';

/** What startTestApp takes; a function is called in the beforeAll, so it may use what earlier hooks made. */
export type AppOptions = NonNullable<Parameters<typeof startTestApp>[0]>;

export interface TestStore {
  /** The app on its own fresh database (platform client, SDK clients for any key, deps). */
  readonly app: TestApp;
  /** The project, created through the platform API. */
  readonly project: CreatedProject['project'];
  /** Its four keys, tokens included. */
  readonly keys: CreatedProject['keys'];
  /** SDK client with the project's secret test key. */
  readonly api: CommerceClient;
  /** A raw HTTP request with the secret test key (JSON body when given), for what the typed SDK cannot send. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
}

/**
 * An object that stands for the value `current()` answers once a hook has made it: property reads go to
 * that value, so it can be taken at module level and used in tests and hooks. Before, reads throw.
 */
function standIn<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    // Not a thenable: awaiting or returning it from an async function must not ask for the value.
    get: (_, key) => (key === 'then' ? undefined : Reflect.get(current(), key)),
    has: (_, key) => Reflect.has(current(), key),
  });
}

// What must stop before each app closes (a worker on its database, a second process), last registered first.
const stoppers = new WeakMap<TestApp, Array<() => Promise<void>>>();

/**
 * The bootstrap of a test file that needs the app but no project of its own: registers a beforeAll that
 * starts the app (startTestApp with `options`) and an afterAll that closes it, and returns the app. Its
 * properties answer once that beforeAll has run (before, at module level or in a describe body, they
 * throw); beforeAll hooks registered after this call run after it.
 */
export function useApp(options: AppOptions | (() => AppOptions) = {}): TestApp {
  let started: TestApp | undefined;
  const app = standIn(() => {
    if (!started) throw new Error('useApp(): the app exists once its beforeAll has run; use it in tests and hooks.');
    return started;
  });
  stoppers.set(app, []);
  beforeAll(async () => {
    started = await startTestApp(typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    for (const stop of stoppers.get(app)!.reverse()) await stop();
    await started?.close();
  });
  return app;
}

/**
 * Runs `stop` when `app` (from useApp or useStore) closes, before it: for what uses the app's database and
 * must end first (a job worker, a second process). Registered later, stopped earlier.
 */
export function stopBeforeClosing(app: TestApp, stop: () => Promise<unknown>): void {
  const list = stoppers.get(app);
  if (!list) throw new Error('stopBeforeClosing(): the app must come from useApp() or useStore().');
  list.push(async () => {
    await stop();
  });
}

/**
 * A second app on `first`'s database, as a second process of the same deployment: started after `first`
 * (startTestApp with `options` and first's database), closed before it.
 */
export function useSecondApp(first: TestApp, options: AppOptions | (() => AppOptions) = {}): TestApp {
  let started: TestApp | undefined;
  const app = standIn(() => {
    if (!started)
      throw new Error('useSecondApp(): the app exists once its beforeAll has run; use it in tests and hooks.');
    return started;
  });
  beforeAll(async () => {
    const own = typeof options === 'function' ? options() : options;
    started = await startTestApp({ ...own, databaseUrl: first.deps.config.databaseUrl });
    const second = started;
    stopBeforeClosing(first, () => second.close());
  });
  return app;
}

/**
 * The bootstrap of a test file that works in one project: useApp(options.app), then a beforeAll that
 * creates the project (buildProject defaults plus `project`) with its keys. `app` and `api` can be taken at
 * module level (`const { app, api } = store`): their properties answer once that beforeAll has run.
 * `project`, `keys` and `call` answer from then on too, and throw before (at module level or in a
 * describe body). beforeAll hooks registered after this call run after it.
 */
export function useStore(
  options: { project?: Partial<components['schemas']['ProjectCreate']>; app?: AppOptions | (() => AppOptions) } = {},
): TestStore {
  const app = useApp(options.app);
  let created: { project: CreatedProject; api: CommerceClient } | undefined;
  beforeAll(async () => {
    const project = await createProject(app, options.project);
    created = { project, api: app.client(project.keys.secret_test.token) };
  });
  const ready = () => {
    if (!created)
      throw new Error('useStore(): the app and project exist once its beforeAll has run; use them in tests and hooks.');
    return created;
  };
  const api = standIn(() => ready().api);
  return {
    app,
    api,
    get project() {
      return ready().project.project;
    },
    get keys() {
      return ready().project.keys;
    },
    call(method, path, body) {
      const { project } = ready();
      return fetch(`${app.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${project.keys.secret_test.token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
  };
}
