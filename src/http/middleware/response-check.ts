import type { ValidateFunction } from 'ajv';
import type { Middleware } from 'koa';
import { openapiJson } from '../../generated/document.js';
import { AppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { createAjv, rewriteComponentRefs, type JsonSchema, type OpenApiDocument } from '../../shared/openapi-ajv.js';
import type { RequestState } from '../state.js';

/** Every contract violation seen in this process; the test suite fails when it is not empty. */
export const contractViolations: string[] = [];

type ResponseObject = { content?: Record<string, { schema?: JsonSchema }> };

/** Checks answers against the statuses and schemas openapi.yaml declares for their operation. */
export class ContractChecker {
  private readonly document = JSON.parse(openapiJson) as OpenApiDocument & {
    components: { responses: Record<string, ResponseObject> };
  };
  // Answers with `fields` need no relaxation: the document declares their sparse objects (anyOf [X, XSparse]).
  // No meta-schema check here: `npm run generate` compiles the same schemas with it (and generate:check keeps
  // the embedded document equal to openapi.yaml).
  private readonly ajv = createAjv(this.document, { strict: false, validateSchema: false });
  private readonly cache = new Map<string, ValidateFunction | null>();
  // One validator per distinct schema: most declared answers share theirs (the error shape, a resource, its list).
  private readonly bySchema = new Map<string, ValidateFunction>();

  /** A description of what is wrong with this answer, or undefined when it matches the contract. */
  violation(
    operation: { path: string; method: string; operationId: string } | undefined,
    status: number,
    body: unknown,
  ): string | undefined {
    const where = operation ? `${operation.operationId} ${status}` : `unrouted ${status}`;
    let response: ResponseObject | undefined;
    if (operation) {
      const op = this.document.paths[operation.path]?.[operation.method.toLowerCase()] as {
        responses: Record<string, ResponseObject & { $ref?: string }>;
      };
      response = this.resolve(op.responses[String(status)]);
      if (!response) return `${where}: status ${status} is not declared`;
    } else {
      response = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    }
    const media = response.content ? Object.keys(response.content)[0] : undefined;
    if (!media)
      return body === undefined || body === null || body === ''
        ? undefined
        : `${where}: declares no body but one was sent`;
    if (!this.cache.has(where)) {
      const schema = response.content?.[media]?.schema;
      this.cache.set(where, schema ? this.validatorFor(schema) : null);
    }
    const validate = this.cache.get(where);
    if (!validate || validate(body)) return undefined;
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    return `${where}: body does not match openapi.yaml: ${errors}`;
  }

  private validatorFor(schema: JsonSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.bySchema.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteComponentRefs(schema));
      this.bySchema.set(key, validate);
    }
    return validate;
  }

  private resolve(response: (ResponseObject & { $ref?: string }) | undefined): ResponseObject | undefined {
    if (!response?.$ref) return response;
    return this.document.components.responses[response.$ref.split('/').pop()!];
  }
}

let shared: ContractChecker | undefined;

/** The process's one ContractChecker (made on first use), so every app and test in it compiles each schema once. */
export function sharedContractChecker(): ContractChecker {
  shared ??= new ContractChecker();
  return shared;
}

/**
 * Validates every answer's status and body against openapi.yaml; a violation is recorded, logged and
 * turned into a 500 so no test can pass on a response the contract does not allow.
 */
export function responseCheck(log: Logger): Middleware<RequestState> {
  const checker = sharedContractChecker();
  return async (ctx, next) => {
    await next();
    if (ctx.method === 'OPTIONS' || ctx.method === 'HEAD') return;
    const operation = ctx.state.operation;
    const violation = checker.violation(operation, ctx.status, ctx.body);
    if (!violation) return;
    contractViolations.push(`${ctx.method} ${ctx.url}: ${violation}`);
    log.error('contract violation', { requestId: ctx.state.requestId, violation });
    ctx.status = 500;
    ctx.body = new AppError('internal_error', `Response violates openapi.yaml: ${violation}`).toBody();
  };
}
