import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppDeps } from '../app-deps.js';
import { operationIndex, type OperationMeta } from '../generated/operations.js';
import { validators } from '../generated/validators.js';
import type { Database } from '../db/client.js';
import { AppError } from '../shared/errors.js';
import { conditionalPlan } from './conditional-operations.js';
import type { Ctx } from '../shared/context.js';
import type { Handlers } from '../shared/contract.js';
import { authenticate } from './middleware/auth.js';
import { jsonBody } from './middleware/body.js';
import { entityTag, ifMatch, shapedEntityTag, type CurrentReader } from './middleware/conditional.js';
import { BROWSER_AUTH, corsHeaders, corsPreflight } from './middleware/cors.js';
import { rateLimit } from './middleware/rate-limit.js';
import { idempotency } from './middleware/idempotency.js';
import { validate } from './middleware/validate.js';
import { CONSISTENCY_TOKEN, markWrites, readRouted, REPLICA_READS } from './replica-reads.js';
import type { AppContext, RequestState } from './state.js';

/** Operations that verify a signature over the body as sent, so it is kept beside the parsed body. */
const RAW_BODY_OPERATIONS = new Set<string>(['receiveStripeWebhook']);

const literalSegments = (path: string) =>
  path.split('/').filter((segment) => segment && !segment.startsWith('{')).length;

function invoke(operation: OperationMeta, handlers: Handlers, deps: AppDeps): Middleware<RequestState> {
  const handler = handlers[operation.operationId] as (input: unknown) => Promise<{
    status: number;
    body?: unknown;
    headers?: Record<string, string>;
    type?: string;
  }>;
  const replicaRead = REPLICA_READS.has(operation.operationId);
  return async (ctx) => {
    const run = (service: Ctx | undefined) =>
      handler({
        path: ctx.state.path,
        query: ctx.state.query,
        body: ctx.request.body,
        ctx: service,
        deps: ctx.state.db ? { ...deps, db: ctx.state.db } : deps,
        requestId: ctx.state.requestId,
        clientAddress: ctx.ip,
        header: (name: string) => ctx.get(name) || undefined,
        rawBody: ctx.state.rawBody,
      });
    const service = ctx.state.service;
    const reply = await (replicaRead && service
      ? readRouted(deps, service, run, ctx.get(CONSISTENCY_TOKEN) || undefined)
      : run(service));
    ctx.status = reply.status;
    if (reply.body !== undefined) ctx.body = reply.body;
    if (reply.type) ctx.type = reply.type;
    for (const [name, value] of Object.entries(reply.headers ?? {})) ctx.set(name, value);
  };
}

/** Thrown to roll back a dry run. */
class DryRun extends Error {}

/**
 * Reads the resource a request's path names, as `reader` answers it (`data`) on the given database: a GET with
 * no query parameters (their defaults applied), or a PATCH with an empty body in a savepoint that is rolled back.
 */
function currentReader(reader: OperationMeta, handlers: Handlers, deps: AppDeps): CurrentReader {
  const handler = handlers[reader.operationId] as (input: unknown) => Promise<{ body?: { data?: unknown } }>;
  const run = async (ctx: AppContext, db: Database, body: unknown) => {
    const query = {};
    validators[reader.operationId].query?.(query);
    const service = ctx.state.service && { ...ctx.state.service, db };
    const input = { path: ctx.state.path, query, body, ctx: service, deps: { ...deps, db } };
    return (
      await handler({
        ...input,
        requestId: ctx.state.requestId,
        clientAddress: ctx.ip,
        header: (name: string) => ctx.get(name) || undefined,
      })
    ).body?.data;
  };
  if (reader.method === 'GET') return (ctx, db) => run(ctx, db, undefined);
  return async (ctx, db) => {
    let data: unknown;
    await db
      .$transaction(async (dry) => {
        data = await run(ctx, dry as Database, {});
        throw new DryRun();
      })
      .catch((error: unknown) => {
        if (!(error instanceof DryRun)) throw error;
      });
    return data;
  };
}

const routePath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** A request path's route group: its first two segments, lower-cased (routes match case-insensitively). */
function groupOf(path: string): string {
  const [, first = '', second = ''] = path.toLowerCase().split('/', 3);
  return `/${first}/${second}`;
}

/** The operations' routes: the middleware that runs them, and which routes a path matches (null: none). */
export interface Routes {
  routes(): Middleware<RequestState>;
  match(path: string, method: string): ReturnType<Router<RequestState>['match']> | null;
}

/**
 * Routes for `operations`, each running `middlewareFor(operation)`: paths with more literal segments register
 * first so `/x/reorder` wins over `/x/{slug}`; paths of browser operations (publishable key or customer token)
 * answer the preflight OPTIONS. The routes are grouped by their first two path segments (no operation has a
 * parameter there), so a request is matched against its group's few routes, not every route in turn. The server
 * and the mock (mocks/mock-front.ts) route alike.
 */
export function routeOperations(
  operations: readonly OperationMeta[],
  middlewareFor: (operation: OperationMeta) => Middleware<RequestState>[],
): Routes {
  const groups = new Map<string, Router<RequestState>>();
  const routerOf = (path: string) => {
    let router = groups.get(groupOf(path));
    if (!router) groups.set(groupOf(path), (router = new Router<RequestState>()));
    return router;
  };
  const ordered = [...operations].sort((a, b) => literalSegments(b.path) - literalSegments(a.path));
  const browserMethods = new Map<string, string[]>();
  for (const operation of ordered) {
    if (BROWSER_AUTH.has(operation.auth))
      browserMethods.set(operation.path, [...(browserMethods.get(operation.path) ?? []), operation.method]);
    const middleware: Middleware<RequestState>[] = [
      async (ctx, next) => {
        ctx.state.operation = operation;
        await next();
      },
      ...middlewareFor(operation),
    ];
    routerOf(operation.path).register(routePath(operation.path), [operation.method], middleware as never, {
      name: operation.operationId,
    });
  }
  for (const [path, methods] of browserMethods)
    routerOf(path).register(routePath(path), ['OPTIONS'], [corsPreflight(methods)] as never);
  const middlewares = new Map<string, Middleware<RequestState>>(
    [...groups].map(([group, router]) => [group, router.routes() as Middleware<RequestState>]),
  );
  return {
    routes: () => async (ctx, next) => {
      const middleware = middlewares.get(groupOf(ctx.path));
      await (middleware ? middleware(ctx, next) : next());
    },
    match: (path, method) => groups.get(groupOf(path))?.match(path, method) ?? null,
  };
}

/**
 * The routes of every operation in openapi.yaml, in the pipeline order auth, body, rate limit,
 * idempotency, validation, handler (routeOperations). Without a platform token the /platform routes do not exist
 * (404), nor /metrics without a metrics token. Browser operations carry CORS headers; secret-key operations do not.
 */
export function buildRouter(deps: AppDeps, handlers: Handlers): Routes {
  const operations = operationIndex.filter(
    (operation) =>
      !(operation.path.startsWith('/platform/') && !deps.config.platformToken) &&
      !(operation.auth === 'metrics' && !deps.config.metricsToken),
  );
  return routeOperations(operations, (operation) => {
    const plan = conditionalPlan(operation);
    const read = plan.reader && currentReader(plan.reader, handlers, deps);
    return [
      ...(BROWSER_AUTH.has(operation.auth) ? [corsHeaders()] : []),
      markWrites(deps),
      authenticate(operation, deps),
      ...(operation.hasBody ? [jsonBody(RAW_BODY_OPERATIONS.has(operation.operationId))] : []),
      rateLimit(deps),
      ...(plan.entityTag ? [entityTag()] : []),
      ...(operation.idempotent ? [idempotency(deps)] : []),
      validate(operation),
      ...(read && plan.ifMatch ? [ifMatch(read, deps)] : []),
      ...(read && plan.entityTag && operation.method === 'GET' ? [shapedEntityTag(read, deps)] : []),
      invoke(operation, handlers, deps),
    ];
  });
}

/** What answers when no route did: 405 with Allow for a known path, 404 otherwise. */
export function unmatched(router: Routes): Middleware<RequestState> {
  return async (ctx) => {
    const match = router.match(ctx.path, ctx.method);
    const allowed = [...new Set((match?.path ?? []).flatMap((layer) => layer.methods))].filter(
      (method) => method !== 'HEAD',
    );
    if (allowed.length > 0) {
      throw new AppError(
        'invalid_request',
        `Method ${ctx.method} is not allowed here. Allowed methods are ${allowed.join(', ')}.`,
        {
          status: 405,
          headers: { Allow: allowed.join(', ') },
        },
      );
    }
    throw new AppError(
      'not_found',
      `No such path: ${ctx.method} ${ctx.path}. The operations are listed at /openapi.json.`,
    );
  };
}
