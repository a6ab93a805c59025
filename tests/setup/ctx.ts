import type { Ctx } from '../../src/shared/context.js';
import type { TestApp } from './test-app.js';

/** The service context a request with the project's secret test key would get, for calling services directly. */
export async function keyCtx(app: TestApp, projectId: string, keyId: string): Promise<Ctx> {
  const project = await app.deps.db.project.findUniqueOrThrow({ where: { id: projectId } });
  return {
    db: app.deps.db,
    jobs: app.deps.jobs,
    log: app.deps.log,
    project,
    actor: { kind: 'api_key', id: keyId, keyType: 'secret' },
    mode: 'test',
    requestId: 'test',
  };
}
