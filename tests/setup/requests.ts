import type { CommerceClient } from '@commerce-api/sdk';

/** The params of an operation on one resource by its id (a path with `{id}`), for the SDK's typed calls. */
export const byId = (id: string) => ({ params: { path: { id } } });

/** A query of GET /v1/search: `q` and any other parameter (sent as given, valid or not). */
export type SearchQuery = { q: string } & Record<string, unknown>;

/**
 * GET /v1/search through `api` (with extra request `headers`, e.g. X-Forwarded-For behind a trusted proxy): the
 * answer's data (products, collections, ...); throws with the status otherwise.
 */
export async function search(api: CommerceClient, query: SearchQuery, headers: Record<string, string> = {}) {
  const { data, error, response } = await api.GET('/v1/search', { params: { query: query as never }, headers });
  if (!data) throw new Error(`search ${JSON.stringify(query)} answered ${response.status}: ${JSON.stringify(error)}`);
  return data.data;
}
