/**
 * Type-level tests of the SDK package (imported by name, as a third party does): each `@ts-expect-error`
 * pins a guarantee; if one is lost the directive is unused and `tsc` (run first by `npm test`) fails.
 */
import { type ApiError, createCommerceClient, type ErrorCode, type Schema } from '@commerce-api/sdk';

const api = createCommerceClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'sk_test_...' });

// Without `fields`, answers are whole objects: required properties are present.
export async function whole(): Promise<string> {
  const { data } = await api.GET('/v1/customers/{id}', { params: { path: { id: 'cus_1' } } });
  return data!.data.email;
}

// With `fields`, answers are sparse: only `id` is sure to be there.
export async function sparse(): Promise<string> {
  const { data } = await api.GET('/v1/customers/{id}', {
    params: { path: { id: 'cus_1' }, query: { fields: ['email'] } },
  });
  const id: string = data!.data.id;
  // @ts-expect-error email may be absent from a sparse answer
  const email: string = data!.data.email;
  return id + email;
}

// paginate yields the list's item type, sparse with `fields`, and takes list paths only.
export async function iterate(): Promise<void> {
  for await (const customer of api.paginate('/v1/customers', { query: { limit: 100, search: 'jane' } })) {
    const whole: Schema<'Customer'> = customer;
    void whole;
  }
  for await (const customer of api.paginate('/v1/customers', { query: { fields: ['email'] } })) {
    // @ts-expect-error a sparse customer is not a whole one
    const whole: Schema<'Customer'> = customer;
    void whole;
  }
  for await (const email of api.paginate('/platform/v1/projects/{id}/outbox', { path: { id: 'proj_1' } }))
    void email.subject;
  // @ts-expect-error a list with path parameters needs them
  api.paginate('/platform/v1/projects/{id}/outbox');
  // @ts-expect-error a single resource is not a list
  api.paginate('/v1/customers/{id}', { path: { id: 'cus_1' } });
  // @ts-expect-error the query is the list's own: no unknown parameters
  api.paginate('/v1/customers', { query: { q: 'jane' } });
}

// Error codes are the contract's.
export const code: ErrorCode = 'not_found';
// @ts-expect-error not an error code of the contract
export const unknownCode: ErrorCode = 'teapot';
export const fieldOf = (error: ApiError): string | undefined => error.field;
