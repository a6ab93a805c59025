import type { ErrorObject } from 'ajv';
import type { Middleware } from 'koa';
import type { OperationMeta } from '../../generated/operations.js';
import { validators } from '../../generated/validators.js';
import { AppError } from '../../shared/errors.js';
import { unstorableText } from '../unstorable-text.js';
import { unknownParameters } from '../unknown-parameters.js';
import { validationError } from '../validation-errors.js';
import type { RequestState } from '../state.js';

/** Query values as validators expect them: comma lists split for array parameters. */
function queryFor(
  operation: OperationMeta,
  raw: Record<string, string | string[] | undefined>,
): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    query[name] = operation.arrayQuery.includes(name)
      ? [value]
          .flat()
          .flatMap((part) => part.split(','))
          .map((part) => part.trim())
          .filter((part) => part !== '')
      : value;
  }
  return query;
}

/**
 * Validates path, query and body with the operation's generated validators (query and path coerced,
 * defaults applied; bodies strict); a query parameter the operation does not take is refused like an
 * unknown body field, and a NUL character or lone surrogate anywhere in query or body (PostgreSQL cannot
 * store them) answers 400 naming the field (in a path, 404: it names no resource). Every problem is reported at once.
 */
export function validate(operation: OperationMeta): Middleware<RequestState> {
  const { path: pathValidator, query: queryValidator, body: bodyValidator } = validators[operation.operationId];
  return async (ctx, next) => {
    const failures: Array<{ errors: ErrorObject[]; parameters?: boolean; data?: unknown }> = [];
    const path = { ...(ctx as unknown as { params: Record<string, string> }).params };
    if (pathValidator && !pathValidator(path))
      failures.push({ errors: pathValidator.errors ?? [], parameters: true, data: path });
    const query = queryFor(operation, ctx.query);
    // An id in the path names no resource "whatever its form" (404); one holding NUL or a lone surrogate cannot even be
    // looked up. A path parameter the schema already refuses (an enum such as owner_type) is reported with the rest (400).
    if (failures.length === 0 && unstorableText(path, 'parameters').length > 0)
      throw new AppError('not_found', 'Not found: the path names no resource of this project.');
    // Problems found without a schema: unknown query parameters, and text PostgreSQL cannot store (NUL, lone surrogates).
    const found = [...unknownParameters(query, operation.queryParams), ...unstorableText(query, 'parameters')];
    if (queryValidator && !queryValidator(query))
      failures.push({ errors: queryValidator.errors ?? [], parameters: true, data: query });
    const body = ctx.request.body;
    if (operation.hasBody) found.push(...unstorableText(body, 'body'));
    if (operation.hasBody) {
      if (body === undefined) {
        if (operation.bodyRequired) throw new AppError('invalid_request', 'A JSON request body is required.');
      } else if (bodyValidator && !bodyValidator(body)) {
        failures.push({ errors: bodyValidator.errors ?? [], data: body });
      }
    }
    if (failures.length > 0 || found.length > 0) throw validationError(failures, found);
    ctx.state.path = path;
    ctx.state.query = query;
    await next();
  };
}
