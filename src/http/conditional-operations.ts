import { openapiJson } from '../generated/document.js';
import { operationIndex, type OperationMeta } from '../generated/operations.js';

/** The parts of an operation's declaration in openapi.yaml that entity tags depend on. */
interface DeclaredOperation {
  parameters?: Array<{ $ref?: string }>;
  responses?: Record<string, { headers?: Record<string, { $ref?: string }> } | undefined>;
}
const document = JSON.parse(openapiJson) as { paths: Record<string, Record<string, DeclaredOperation>> };
const ENTITY_TAG = '#/components/headers/EntityTag';
const IF_MATCH = '#/components/parameters/IfMatch';

/** What openapi.yaml declares an operation does with entity tags (codegen/conditional-requests.ts writes it). */
export interface ConditionalPlan {
  /** Its success answer carries `ETag`. */
  entityTag: boolean;
  /** It takes `If-Match`. */
  ifMatch: boolean;
  /**
   * The operation that reads the resource's current representation: the GET of the same path, else (a resource
   * shown only through its parent or a list) the PATCH of the same path, run with an empty body and rolled back.
   */
  reader?: OperationMeta;
}

/** The plan of an operation, from its declarations in openapi.yaml. */
export function conditionalPlan(operation: OperationMeta): ConditionalPlan {
  const declared = document.paths[operation.path][operation.method.toLowerCase()];
  const success = declared.responses?.[operation.method === 'POST' ? '201' : '200'];
  const entityTag = success?.headers?.ETag?.$ref === ENTITY_TAG;
  const ifMatch = (declared.parameters ?? []).some((parameter) => parameter.$ref === IF_MATCH);
  const sibling = (method: string) => operationIndex.find((op) => op.path === operation.path && op.method === method);
  const needsReader = ifMatch || (entityTag && operation.method === 'GET');
  return { entityTag, ifMatch, reader: needsReader ? (sibling('GET') ?? sibling('PATCH')) : undefined };
}
