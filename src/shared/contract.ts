import type { operations } from '../generated/openapi.js';
import type { OperationAuth, OperationId, OperationsByTag } from '../generated/operations.js';
import type { AppDeps } from '../app-deps.js';
import type { Ctx } from './context.js';

type Operation<O extends OperationId> = operations[O];

export type PathParams<O extends OperationId> = Operation<O>['parameters'] extends { path: infer P }
  ? P
  : Record<string, never>;
export type QueryParams<O extends OperationId> = NonNullable<Operation<O>['parameters']['query']>;
/** The JSON body; possibly undefined when the operation's body is optional. */
export type RequestBody<O extends OperationId> =
  NonNullable<Operation<O>['requestBody']> extends { content: { 'application/json': infer B } }
    ? undefined extends Operation<O>['requestBody']
      ? B | undefined
      : B
    : undefined;

type ContentOf<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: { 'application/yaml': infer B } }
    ? B
    : R extends { content: { 'text/html': infer B } }
      ? B
      : R extends { content: { 'text/css': infer B } }
        ? B
        : R extends { content: { 'text/plain': infer B } }
          ? B
          : undefined;
type Responses<O extends OperationId> = Operation<O>['responses'];

/** A declared response of operation O: a status the document lists, with that status's body. */
export type Reply<O extends OperationId> = {
  [S in keyof Responses<O>]: {
    status: S;
    body: ContentOf<Responses<O>[S]>;
    headers?: Record<string, string>;
    /** Content type when not JSON. */
    type?: string;
  };
}[keyof Responses<O>];

/** Operations on a project's data (API key or customer token) get a service context; platform and public ones do not. */
type CtxFor<A> = A extends 'platform' | 'none' ? undefined : Ctx;

export interface Input<O extends OperationId> {
  path: PathParams<O>;
  query: QueryParams<O>;
  body: RequestBody<O>;
  /** The service context of the request: project, actor, mode. */
  ctx: CtxFor<OperationAuth[O]>;
  deps: AppDeps;
  requestId: string;
  /** The client's address: the connection's, or behind a trusted proxy (TRUST_PROXY) the one it appended. */
  clientAddress: string;
  /** A request header by name (case-insensitive); undefined when absent or empty. For header parameters the operation declares. */
  header: (name: string) => string | undefined;
  /** The body's text as sent (only for operations whose signature covers it: receiveStripeWebhook). */
  rawBody?: string;
}

export type Handler<O extends OperationId> = (input: Input<O>) => Promise<Reply<O>>;
/** One handler per operation of openapi.yaml. */
export type Handlers = { [O in OperationId]: Handler<O> };
/** The tags (areas) of openapi.yaml. */
export type Area = keyof OperationsByTag;
/** The handlers of one area: an operation of the tag without its handler, or one of another tag, fails to compile. */
export type AreaHandlers<A extends Area> = { [O in OperationsByTag[A]]: Handler<O> };
/** Some handlers of an area, for areas whose handlers are split by sub-resource and joined in one map. */
export type PartialAreaHandlers<A extends Area> = Partial<AreaHandlers<A>>;
