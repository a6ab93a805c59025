import { afterAll, beforeAll } from '@jest/globals';
import type { CommerceClient, components } from '../../src/sdk/index.js';
import { createProject, type CreatedProject } from '../factories/project.factory.js';
import { startTestApp, type TestApp } from './test-app.js';

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
 * The bootstrap of a test file that works in one project: registers a beforeAll that starts the app and
 * creates the project (buildProject defaults plus `project`) with its keys, and an afterAll that closes
 * the app. The returned object's getters answer once that beforeAll has run; before (at module level or in
 * a describe body) they throw. beforeAll hooks registered after this call run after it.
 */
export function useStore(
  options: { project?: Partial<components['schemas']['ProjectCreate']>; app?: Parameters<typeof startTestApp>[0] } = {},
): TestStore {
  let app: TestApp | undefined;
  let created: { project: CreatedProject; api: CommerceClient } | undefined;
  beforeAll(async () => {
    app = await startTestApp(options.app);
    const project = await createProject(app, options.project);
    created = { project, api: app.client(project.keys.secret_test.token) };
  });
  afterAll(async () => {
    await app?.close();
  });
  const ready = () => {
    if (!app || !created)
      throw new Error('useStore(): the app and project exist once its beforeAll has run; use them in tests and hooks.');
    return { app, ...created };
  };
  return {
    get app() {
      return ready().app;
    },
    get project() {
      return ready().project.project;
    },
    get keys() {
      return ready().project.keys;
    },
    get api() {
      return ready().api;
    },
    call(method, path, body) {
      const { app, project } = ready();
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
