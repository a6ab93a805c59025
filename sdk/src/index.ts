/** The Commerce Platform API's client SDK: typed from openapi.yaml (see README.md). */
export { authHeaders, createCommerceClient, createStorefrontClient, idempotencyHeader } from './client.js';
export type {
  CommerceClient,
  CommerceClientOptions,
  ExactBodyCall,
  PathArgument,
  SparseAwareGet,
  StorefrontClient,
  StorefrontPath,
} from './client.js';
export type { StorefrontOperations } from './generated/storefront.js';
export type { Exact } from './exact.js';
export { ApiError, unwrap } from './errors.js';
export type { CallResult, ErrorCode, ErrorDetail } from './errors.js';
export type { ListItem, ListPath, ListQuery, Paginate, PaginateOptions } from './paginate.js';
export type { FieldsSent, Sparse, SparseBody } from './sparse.js';
export type { components, operations, paths } from './generated/openapi.js';

import type { components } from './generated/openapi.js';
/** A schema of the contract by name, e.g. `Schema<'Customer'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
