/**
 * Each operation's own 400 example: a request that breaks one of the operation's rules (a body field, else
 * `limit`, else an undeclared query parameter), answered by the server's own validators and messages, so
 * the mock (`npm run mock`) says what the server would say. `npm run spec:common-responses` writes them into
 * openapi.yaml; tests/integration/mock/error-examples.test.ts sends each request to the server and compares.
 */
import type { OperationId } from '../src/generated/operations.js';
import { validators } from '../src/generated/validators.js';
import { unknownParameters } from '../src/http/unknown-parameters.js';
import { validationError } from '../src/http/validation-errors.js';
import type { JsonSchema, OpenApiDocument } from '../src/shared/openapi-ajv.js';
import type { OperationSpec } from './operations.js';

export interface BadRequest {
  query: Record<string, string>;
  body?: Record<string, unknown>;
  answer: {
    error: { code: string; message: string; field?: string; details?: Array<{ field: string; message: string }> };
  };
}

type Schema = JsonSchema & {
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  example?: unknown;
  oneOf?: Schema[];
  allOf?: Schema[];
};

function resolve(document: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let depth = 0; current?.$ref && depth < 10; depth += 1) {
    current = document.components.schemas[current.$ref.split('/').pop()!];
  }
  return current;
}

/** Values to try for a field, most realistic first: the example in lower case, empty, a wrong type. */
function candidates(example: unknown): unknown[] {
  const lower = typeof example === 'string' && example.toLowerCase() !== example ? [example.toLowerCase()] : [];
  return [...lower, '', 12345, 'x', -1, []];
}

function answerOf(error: ReturnType<typeof validationError>): BadRequest['answer'] {
  const { field, details } = error.options;
  return {
    error: { code: error.code, message: error.message, ...(field ? { field } : {}), ...(details ? { details } : {}) },
  };
}

/** The bad request and the server's answer for `op`, or undefined when no rule of the operation can be broken. */
export function badRequestFor(document: OpenApiDocument, op: OperationSpec): BadRequest | undefined {
  const checks = validators[op.operationId as OperationId];
  const bodySchema = resolve(document, op.body?.schema);
  if (checks.body && bodySchema?.properties) {
    const operation = (document.paths[op.path] as Record<string, any>)[op.method];
    const example = (operation.requestBody?.content?.['application/json']?.example ?? {}) as Record<string, unknown>;
    const names = [...(bodySchema.required ?? []), ...Object.keys(bodySchema.properties)];
    for (const name of names) {
      const property = resolve(document, bodySchema.properties[name]);
      for (const value of candidates(example[name] ?? property?.example)) {
        const body = { ...example, [name]: value };
        if (checks.body(body)) continue;
        const error = validationError([{ errors: checks.body.errors ?? [], data: body }]);
        if (error.options.field === name) return { query: {}, body, answer: answerOf(error) };
      }
    }
  }
  if (op.parameters.some((p) => p.in === 'query' && p.name === 'limit') && checks.query) {
    const query = { limit: '500' };
    const coerced: Record<string, unknown> = { ...query };
    if (!checks.query(coerced)) {
      return { query, answer: answerOf(validationError([{ errors: checks.query.errors ?? [], parameters: true }])) };
    }
  }
  const declared = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const name = ['q', 'filter', 'x'].find((candidate) => !declared.includes(candidate))!;
  return {
    query: { [name]: 'x' },
    answer: answerOf(validationError([], unknownParameters({ [name]: 'x' }, declared))),
  };
}
