import type { operations } from '../generated/openapi.js';
import type { OperationAuth, OperationId } from '../generated/operations.js';
import type { AppDeps } from '../app-deps.js';
import type { Project } from '../generated/prisma/client.js';

type Operation<O extends OperationId> = operations[O];

export type PathParams<O extends OperationId> = Operation<O>['parameters'] extends { path: infer P } ? P : Record<string, never>;
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

export interface KeyCaller {
  kind: 'key';
  project: Project;
  key: { id: string; type: 'secret' | 'publishable'; mode: 'test' | 'live' };
}
export interface PlatformCaller {
  kind: 'platform';
}
export interface AnonymousCaller {
  kind: 'none';
}
type CallerFor<A> = A extends 'platform' ? PlatformCaller : A extends 'none' ? AnonymousCaller : KeyCaller;
export type Caller = KeyCaller | PlatformCaller | AnonymousCaller;

export interface Input<O extends OperationId> {
  path: PathParams<O>;
  query: QueryParams<O>;
  body: RequestBody<O>;
  caller: CallerFor<OperationAuth[O]>;
  deps: AppDeps;
  requestId: string;
}

export type Handler<O extends OperationId> = (input: Input<O>) => Promise<Reply<O>>;
/** One handler per operation of openapi.yaml. */
export type Handlers = { [O in OperationId]: Handler<O> };
