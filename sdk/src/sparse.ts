/**
 * Types for sparse fields. An operation that takes `fields` answers objects with `id` and the named
 * properties only; a request that may send `fields` gets those types, a request without it the whole object.
 */

/** An object as answered with `fields`: `id`, and any of its other properties. */
export type Sparse<T> = T extends { id: unknown } ? Pick<T, 'id'> & Partial<Omit<T, 'id'>> : T;

/** The query a request's options carry (never when they carry none). */
type QueryOf<Init> = Init extends { params?: infer P }
  ? NonNullable<P> extends { query?: infer Q }
    ? NonNullable<Q>
    : never
  : never;

/** True when the request's query has a `fields` key (sent, or possibly sent). */
export type FieldsSent<Init> = [QueryOf<Init>] extends [never]
  ? false
  : 'fields' extends keyof QueryOf<Init>
    ? true
    : false;

/** An answer body with its resource (`data`, or each item of `data`) made sparse. */
export type SparseBody<B> = B extends { data: Array<infer Item> }
  ? { [K in keyof B]: K extends 'data' ? Array<Sparse<Item>> : B[K] }
  : B extends { data: infer Item }
    ? { [K in keyof B]: K extends 'data' ? Sparse<Item> : B[K] }
    : B;

/** An openapi-fetch result whose success body is sparse when the request sent `fields`. */
export type SparseAware<Result, Init> =
  FieldsSent<Init> extends true
    ? Result extends { data: infer B; error?: never; response: Response }
      ? { data: SparseBody<B>; error?: never; response: Response }
      : Result
    : Result;
