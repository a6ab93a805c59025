import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import { openapiJson } from '../src/generated/document.js';
import { operationIndex, type OperationMeta } from '../src/generated/operations.js';
import { checkKeyClass, sentKey } from '../src/http/middleware/auth.js';
import { jsonBody } from '../src/http/middleware/body.js';
import { BROWSER_AUTH, corsHeaders } from '../src/http/middleware/cors.js';
import { errorHandler } from '../src/http/middleware/errors.js';
import { requestId } from '../src/http/middleware/request-id.js';
import { securityHeaders } from '../src/http/middleware/security-headers.js';
import { validate } from '../src/http/middleware/validate.js';
import { routeOperations, unmatched } from '../src/http/router.js';
import type { RequestState } from '../src/http/state.js';
import { AppError } from '../src/shared/errors.js';
import { pickFields } from '../src/shared/fields.js';
import { createLogger } from '../src/shared/logger.js';

/** The front's own note on a request: the `Prefer` header it sends Prism (an id of the wrong form: `code=404`). */
type MockState = RequestState & { prefer?: string };
type Parameter = { name: string; in: string; example?: unknown; $ref?: string };
const document = JSON.parse(openapiJson) as {
  paths: Record<string, Record<string, { parameters?: Parameter[] }> & { parameters?: Parameter[] }>;
  components: { parameters: Record<string, Parameter> };
};
const resolve = (parameter: Parameter) =>
  parameter.$ref ? document.components.parameters[parameter.$ref.split('/').pop()!] : parameter;

/**
 * The id prefix of each path parameter of an operation that names a resource by id (its example is `<prefix>_` and
 * 26 characters, e.g. `cus_01jd...`): a value of another form names no resource, and the server answers 404.
 */
function idPrefixes(operation: OperationMeta): Map<string, string> {
  const item = document.paths[operation.path];
  const parameters = [...(item.parameters ?? []), ...(item[operation.method.toLowerCase()]?.parameters ?? [])];
  const prefixes = new Map<string, string>();
  for (const parameter of parameters.map(resolve)) {
    const example = typeof parameter.example === 'string' ? parameter.example : '';
    const prefix = /^([a-z]+_)[0-9a-z]{26}$/.exec(example)?.[1];
    if (parameter.in === 'path' && prefix) prefixes.set(parameter.name, prefix);
  }
  return prefixes;
}

/** The key rules of the server's auth that need no database; any well-formed key of the right class is accepted. */
function mockAuth(operation: OperationMeta): Middleware<RequestState> {
  return async (ctx, next) => {
    if (operation.auth === 'secret' || operation.auth === 'publishable' || operation.auth === 'customer') {
      const { token, source } = sentKey(ctx, operation);
      checkKeyClass(token.startsWith('sk_') ? 'secret' : 'publishable', source, operation);
      if (operation.auth === 'customer' && !/^Bearer\s+\S+\s*$/i.test(ctx.get('Authorization')))
        throw new AppError(
          'unauthorized',
          'Missing access token. Send Authorization: Bearer <access token> and the publishable key in X-API-Key.',
        );
    } else if (operation.auth === 'platform' && !/^Bearer\s+\S+\s*$/i.test(ctx.get('Authorization'))) {
      throw new AppError('unauthorized', 'Missing platform token. Send Authorization: Bearer <PLATFORM_TOKEN>.');
    }
    await next();
  };
}

/** Ids of the wrong form answer 404 with the operation's own 404 example (Prism's `Prefer: code=404`). */
function idForms(operation: OperationMeta): Middleware<RequestState> {
  const prefixes = idPrefixes(operation);
  return async (ctx, next) => {
    const path = ctx.state.path as Record<string, string>;
    const wrong = [...prefixes].some(([name, prefix]) => !new RegExp(`^${prefix}[0-9a-z]{26}$`).test(path[name]));
    if (wrong) (ctx.state as MockState).prefer = 'code=404';
    await next();
  };
}

/** Forwards the validated request to Prism and answers what it answered, `fields` applied as the server does. */
function forward(prismUrl: string): Middleware<RequestState> {
  return async (ctx) => {
    const headers = Object.fromEntries(
      Object.entries(ctx.request.headers).flatMap(([name, value]) =>
        ['host', 'connection', 'content-length', 'x-request-id'].includes(name) || value === undefined
          ? []
          : [[name, String(value)]],
      ),
    );
    const { prefer } = ctx.state as MockState;
    if (prefer) headers.prefer = prefer;
    const body = ctx.request.body === undefined ? undefined : JSON.stringify(ctx.request.body);
    const answer = await fetch(`${prismUrl}${ctx.url}`, { method: ctx.method, headers, body });
    ctx.status = answer.status;
    // CORS is the front's (the server's rules), never Prism's.
    answer.headers.forEach((value, name) => {
      const hopByHop = ['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name);
      if (!hopByHop && !name.startsWith('access-control-')) ctx.set(name, value);
    });
    const text = await answer.text();
    const fields = (ctx.state.query as { fields?: string[] } | undefined)?.fields;
    if (!fields || answer.status >= 300 || !text) return void (ctx.body = text);
    const parsed = JSON.parse(text) as { data?: unknown };
    const pick = (item: unknown) => pickFields(item as { id: string }, fields);
    if (Array.isArray(parsed.data)) parsed.data = parsed.data.map(pick);
    else if (parsed.data && typeof parsed.data === 'object') parsed.data = pick(parsed.data);
    ctx.body = parsed;
  };
}

/**
 * The mock's front: Prism (started with --cors false) behind the server's own request pipeline, so a client sees
 * what the server does for every request it refuses: its request id, CORS rules, key rules (401 missing or
 * malformed, 403 a publishable key on a secret operation, 401 a secret key in X-API-Key), body parsing, generated
 * validators (unknown query parameters, `invalid_request` / `validation_error`), 404 for ids of the wrong form,
 * and its error shapes; valid requests get Prism's example, with `fields` applied.
 */
export function startMockFront(host: string, port: number, prismUrl: string): Promise<http.Server> {
  const app = new Koa<RequestState>();
  app.use(securityHeaders());
  app.use(requestId());
  app.use(errorHandler(createLogger('silent')));
  const routes = routeOperations(operationIndex, (operation) => [
    ...(BROWSER_AUTH.has(operation.auth) ? [corsHeaders()] : []),
    mockAuth(operation),
    ...(operation.hasBody ? [jsonBody()] : []),
    validate(operation),
    idForms(operation),
    forward(prismUrl),
  ]);
  app.use(routes.routes());
  app.use(unmatched(routes));
  const callback = app.callback();
  const server = http.createServer((req, res) => void callback(req, res));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

export const portOf = (server: http.Server) => (server.address() as AddressInfo).port;
