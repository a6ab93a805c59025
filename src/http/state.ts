import type { ParameterizedContext } from 'koa';
import type { OperationMeta } from '../generated/operations.js';
import type { Caller } from './contract.js';

/** What the pipeline learns about a request, in the order the middleware fills it in. */
export interface RequestState {
  requestId: string;
  operation?: OperationMeta;
  caller?: Caller;
  /** Validated (and coerced) path and query parameters. */
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
}

export type AppContext = ParameterizedContext<RequestState>;
