import type { PartialAreaHandlers } from '../../shared/contract.js';
import {
  archiveDefinition,
  createDefinition,
  listDefinitions,
  reorderDefinitions,
  updateDefinition,
} from './definitions.service.js';
import { toDefinitionResource } from './metafields.mappers.js';

export const definitionHandlers = {
  listMetafieldDefinitions: async ({ query, ctx }) => ({
    status: 200,
    body: { data: (await listDefinitions(ctx, query.owner_type)).map(toDefinitionResource) },
  }),
  createMetafieldDefinition: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toDefinitionResource(await createDefinition(ctx, body)) },
  }),
  updateMetafieldDefinition: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toDefinitionResource(await updateDefinition(ctx, path.owner_type, path.slug, body)) },
  }),
  archiveMetafieldDefinition: async ({ path, ctx }) => {
    await archiveDefinition(ctx, path.owner_type, path.slug);
    return { status: 204, body: undefined };
  },
  reorderMetafieldDefinitions: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: (await reorderDefinitions(ctx, path.owner_type, body.order)).map(toDefinitionResource) },
  }),
} satisfies PartialAreaHandlers<'metafields'>;
