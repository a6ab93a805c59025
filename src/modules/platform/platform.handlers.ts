import type { AreaHandlers } from '../../shared/contract.js';
import { toOutboxEmailResource, toProjectResource } from './projects.mappers.js';
import { listOutbox } from './outbox.service.js';
import { createApiKey, createProject, getProject, revokeApiKey, updateProject } from './projects.service.js';

export const platformHandlers = {
  createProject: async ({ body, deps }) => {
    const { project, defaultLocationId, keys } = await createProject(deps.db, body);
    return { status: 201, body: { data: { project: toProjectResource(project, defaultLocationId), keys } } };
  },
  getProject: async ({ path, deps }) => {
    const { project, defaultLocationId } = await getProject(deps.db, path.id);
    return { status: 200, body: { data: toProjectResource(project, defaultLocationId) } };
  },
  updateProject: async ({ path, body, deps }) => {
    const { project, defaultLocationId } = await updateProject(deps, path.id, body);
    return { status: 200, body: { data: toProjectResource(project, defaultLocationId) } };
  },
  createApiKey: async ({ path, body, deps }) => ({
    status: 201,
    body: { data: await createApiKey(deps.db, path.id, body.type, body.mode) },
  }),
  revokeApiKey: async ({ path, deps }) => {
    await revokeApiKey(deps, path.id);
    return { status: 204, body: undefined };
  },
  listOutboxEmails: async ({ path, query, deps }) => {
    const { rows, pagination } = await listOutbox(deps.db, path.id, query);
    return { status: 200, body: { data: rows.map(toOutboxEmailResource), pagination } };
  },
} satisfies AreaHandlers<'platform'>;
