import type { JsonSchema, OpenApiDocument } from '../src/shared/openapi-ajv.js';
import { ENTITY_TAG_HEADER, IF_MATCH_PARAMETER } from './conditional-requests.js';

/**
 * The credential an operation takes: `publishable` operations take a publishable (or secret) key in
 * `X-API-Key` or as `Authorization: Bearer`; `customer` ones the key in `X-API-Key` and the customer's access
 * token as `Authorization: Bearer`.
 */
export type AuthKind = 'none' | 'secret' | 'publishable' | 'customer' | 'platform' | 'metrics';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

export interface OperationSpec {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  auth: AuthKind;
  /** A publishable operation that also takes a customer's access token (a `security` option with customerToken). */
  customerTokenOptional: boolean;
  /** A POST whose success is 201 (unless it says `x-idempotent: false`): it accepts Idempotency-Key. */
  idempotent: boolean;
  /** Its success answer (201 for a POST, else 200) declares the `ETag` header (`EntityTag`). */
  entityTag: boolean;
  /** It takes the `If-Match` parameter (`IfMatch`). */
  ifMatch: boolean;
  parameters: ParameterSpec[];
  body?: { required: boolean; schema: JsonSchema };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document with its parameters resolved and its key class derived from `security`. */
export function listOperations(document: OpenApiDocument & { security?: unknown }): OperationSpec[] {
  const operations: OperationSpec[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const method of METHODS) {
      const op = item[method] as Record<string, any> | undefined;
      if (!op) continue;
      const declared = [...shared, ...(op.parameters ?? [])];
      const parameters = declared.map((p) => resolveParameter(document, p));
      const success = op.responses?.[method === 'post' ? '201' : '200'];
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      operations.push({
        operationId: op.operationId,
        method,
        path,
        tag: op.tags?.[0] ?? 'default',
        auth: authKind(op.security ?? document.security ?? []),
        customerTokenOptional: customerTokenOptional(op.security ?? document.security ?? []),
        // `x-idempotent: false` opts a create out, e.g. register, whose answer carries tokens that must not be stored.
        idempotent: method === 'post' && Boolean(op.responses?.['201']) && op['x-idempotent'] !== false,
        entityTag: success?.headers?.ETag?.$ref === ENTITY_TAG_HEADER,
        ifMatch: declared.some((parameter) => (parameter as { $ref?: string }).$ref === IF_MATCH_PARAMETER),
        parameters,
        body: bodySchema ? { required: Boolean(op.requestBody.required), schema: bodySchema } : undefined,
      });
    }
  }
  return operations.sort((a, b) => a.operationId.localeCompare(b.operationId));
}

function resolveParameter(document: OpenApiDocument, parameter: any): ParameterSpec {
  const prefix = '#/components/parameters/';
  if (typeof parameter.$ref === 'string' && parameter.$ref.startsWith(prefix)) {
    return document.components.parameters?.[parameter.$ref.slice(prefix.length)] as ParameterSpec;
  }
  return parameter as ParameterSpec;
}

function authKind(security: Array<Record<string, unknown>>): AuthKind {
  const schemes = new Set(security.flatMap((requirement) => Object.keys(requirement)));
  if (schemes.size === 0) return 'none';
  if (schemes.has('platformToken')) return 'platform';
  if (schemes.has('metricsToken')) return 'metrics';
  // Customer operations need the token in every option; where some option goes without, the token is optional.
  if (security.every((requirement) => 'customerToken' in requirement)) return 'customer';
  if (schemes.has('publishableKeyHeader') || schemes.has('publishableKey')) return 'publishable';
  return 'secret';
}

/** Whether a publishable operation also accepts a customer's access token beside the key (some option, not all). */
function customerTokenOptional(security: Array<Record<string, unknown>>): boolean {
  const withToken = security.filter((requirement) => 'customerToken' in requirement).length;
  return withToken > 0 && withToken < security.length;
}
