import type { AreaHandlers } from '../../shared/contract.js';
import { topQueries, zeroResultQueries } from './analytics.service.js';
import {
  createMerchandisingRule,
  deleteMerchandisingRule,
  getMerchandisingRule,
  listMerchandisingRules,
  updateMerchandisingRule,
} from './merchandising.service.js';
import { toMerchandisingRuleResource, toSynonymGroupResource } from './search.mappers.js';
import { searchCatalog } from './search.service.js';
import { suggest } from './suggest.service.js';
import {
  blockSuggestion,
  deleteSuggestionBlock,
  getSuggestionBlock,
  listSuggestionBlocks,
  toSuggestionBlockResource,
} from './suggestion-blocks.service.js';
import { createSynonymGroup, deleteSynonymGroup, listSynonymGroups, updateSynonymGroup } from './synonyms.service.js';

export const searchHandlers = {
  searchCatalog: async ({ query, ctx, deps, clientAddress }) => ({
    status: 200,
    body: {
      data: await searchCatalog(ctx, query, {
        cache: deps.config.searchCache,
        index: deps.config.searchIndex,
        indexCaches: deps.config.searchIndexCaches,
        log: deps.config.searchLog,
        logTo: deps.db,
        clientAddress,
      }),
    },
  }),
  suggestSearch: async ({ query, ctx, deps }) => ({
    status: 200,
    body: {
      data: await suggest(ctx, query.q, query.limit, {
        cache: deps.config.searchCache,
        index: deps.config.suggestIndex,
      }),
    },
  }),
  listSynonymGroups: async ({ ctx }) => ({
    status: 200,
    body: { data: (await listSynonymGroups(ctx)).map(toSynonymGroupResource) },
  }),
  createSynonymGroup: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toSynonymGroupResource(await createSynonymGroup(ctx, body)) },
  }),
  updateSynonymGroup: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toSynonymGroupResource(await updateSynonymGroup(ctx, path.id, body)) },
  }),
  deleteSynonymGroup: async ({ path, ctx }) => {
    await deleteSynonymGroup(ctx, path.id);
    return { status: 204, body: undefined };
  },
  listMerchandisingRules: async ({ ctx }) => ({
    status: 200,
    body: { data: (await listMerchandisingRules(ctx)).map(toMerchandisingRuleResource) },
  }),
  createMerchandisingRule: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toMerchandisingRuleResource(await createMerchandisingRule(ctx, body)) },
  }),
  getMerchandisingRule: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toMerchandisingRuleResource(await getMerchandisingRule(ctx, path.id)) },
  }),
  updateMerchandisingRule: async ({ path, body, ctx }) => ({
    status: 200,
    body: { data: toMerchandisingRuleResource(await updateMerchandisingRule(ctx, path.id, body)) },
  }),
  deleteMerchandisingRule: async ({ path, ctx }) => {
    await deleteMerchandisingRule(ctx, path.id);
    return { status: 204, body: undefined };
  },
  listSuggestionBlocks: async ({ query, ctx }) => ({ status: 200, body: await listSuggestionBlocks(ctx, query) }),
  blockSuggestion: async ({ body, ctx }) => ({
    status: 201,
    body: { data: toSuggestionBlockResource(await blockSuggestion(ctx, body)) },
  }),
  getSuggestionBlock: async ({ path, ctx }) => ({
    status: 200,
    body: { data: toSuggestionBlockResource(await getSuggestionBlock(ctx, path.id)) },
  }),
  deleteSuggestionBlock: async ({ path, ctx }) => {
    await deleteSuggestionBlock(ctx, path.id);
    return { status: 204, body: undefined };
  },
  getTopSearchQueries: async ({ query, ctx }) => ({
    status: 200,
    body: { data: await topQueries(ctx, query.period, query.limit) },
  }),
  getZeroResultSearchQueries: async ({ query, ctx }) => ({
    status: 200,
    body: { data: await zeroResultQueries(ctx, query.period, query.limit) },
  }),
} satisfies AreaHandlers<'search'>;
