import type { ParameterizedContext } from 'koa';
import type { Database } from '../db/client.js';
import type { OperationMeta } from '../generated/operations.js';
import type { Ctx } from '../shared/context.js';

/** What the pipeline learns about a request, in the order the middleware fills it in. */
export interface RequestState {
  requestId: string;
  operation?: OperationMeta;
  /** The service context, for operations authenticated with an API key (or customer token). */
  service?: Ctx;
  /** The database the handler works on when it is not the process's: the request's own transaction (idempotent creates). */
  db?: Database;
  /** Validated (and coerced) path and query parameters. */
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  /** The handler's object when the body sent is JSON text the pipeline encoded from it (see itemJsonAnswers). */
  encodedFrom?: object;
  /** The body as sent, for the operations that verify a signature over it (receiveStripeWebhook). */
  rawBody?: string;
}

export type AppContext = ParameterizedContext<RequestState>;
