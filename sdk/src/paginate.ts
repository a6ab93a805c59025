import type { Client } from 'openapi-fetch';
import type { PathsWithMethod, SuccessResponseJSON } from 'openapi-typescript-helpers';
import { unwrap } from './errors.js';
import type { paths } from './generated/openapi.js';
import type { Sparse } from './sparse.js';

type GetPath = PathsWithMethod<paths, 'get'>;
type Operation<P extends GetPath> = paths[P]['get'];
type Body<P extends GetPath> = SuccessResponseJSON<Operation<P>>;
type QueryOf<P extends GetPath> = Operation<P> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type PathParamsOf<P extends GetPath> = Operation<P> extends { parameters: { path: infer X } } ? X : never;

/** The paths of cursor-paginated lists (answers `{ data: [...], pagination }`). */
export type ListPath = {
  [P in GetPath]: Body<P> extends { data: unknown[]; pagination: { cursor: unknown } } ? P : never;
}[GetPath];
/** The item type of a list, as answered without `fields`. */
export type ListItem<P extends ListPath> = Body<P> extends { data: Array<infer Item> } ? Item : never;
/** A list's filters and sort (the cursor is managed by `paginate`; `fields` selects the sparse overload). */
export type ListQuery<P extends ListPath> = Omit<QueryOf<P>, 'cursor' | 'fields'>;
type FieldsOf<P extends ListPath> = QueryOf<P> extends { fields?: infer F } ? NonNullable<F> : never;

/** Options of `paginate`: the list's query, its path parameters (when it has any) and extra headers. */
export type PaginateOptions<P extends ListPath> = {
  query?: ListQuery<P>;
  headers?: Record<string, string>;
} & ([PathParamsOf<P>] extends [never] ? { path?: never } : { path: PathParamsOf<P> });

/** Iterates every item of a list (among `Allowed`), page by page, following `pagination.cursor`. */
export interface Paginate<Allowed extends ListPath = ListPath> {
  <P extends Allowed>(
    path: P,
    options: PaginateOptions<P> & { query: ListQuery<P> & { fields: FieldsOf<P> } },
  ): AsyncIterableIterator<Sparse<ListItem<P>>>;
  <P extends Allowed>(
    path: P,
    ...options: [PathParamsOf<P>] extends [never] ? [PaginateOptions<P>?] : [PaginateOptions<P>]
  ): AsyncIterableIterator<ListItem<P>>;
}

interface Page {
  data: unknown[];
  pagination: { cursor: string | null; has_more: boolean };
}

/**
 * A `paginate` for the client: requests the first page with the given query, then each next page with
 * the same query and the previous page's cursor, until `has_more` is false; a failed page throws ApiError.
 */
export function paginator(client: Pick<Client<paths>, 'GET'>): Paginate {
  const get = client.GET as unknown as (
    path: string,
    init: object,
  ) => Promise<{ data?: Page; error?: unknown; response: Response }>;
  return async function* paginate(
    path: string,
    options: { query?: object; path?: object; headers?: Record<string, string> } = {},
  ) {
    let cursor: string | undefined;
    do {
      const query = cursor ? { ...options.query, cursor } : options.query;
      const page = await unwrap(get(path, { params: { path: options.path, query }, headers: options.headers }));
      yield* page.data;
      cursor = page.pagination.has_more && page.pagination.cursor ? page.pagination.cursor : undefined;
    } while (cursor);
  } as Paginate;
}
