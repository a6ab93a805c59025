import { expect } from '@jest/globals';
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

/**
 * `send`'s answer once it is not a 503. A 503 `service_unavailable` is what openapi.yaml's ServiceUnavailable
 * promises when no pooled connection became free within 5 s (dozens of concurrent completions that queue on one
 * row's lock behind a process's pool can take that long on a loaded machine): nothing was written, so it is sent
 * again after its Retry-After (the contract's 5 s), as the contract tells a client to. A 503 with another code or
 * another Retry-After fails the test; a fifth in a row is returned to it.
 */
export async function sentUntilServed<T extends { response: Response; error?: unknown }>(
  send: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await send();
    if (answer.response.status !== 503 || attempt === 5) return answer;
    expect(answer.error).toMatchObject({ error: { code: 'service_unavailable' } });
    expect(answer.response.headers.get('retry-after')).toBe('5');
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
}
