import { operationIndex, type OperationMeta } from '../generated/operations.js';

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

/** The plan of an operation, from its declarations in openapi.yaml (as the generated operation index holds them). */
export function conditionalPlan(operation: OperationMeta): ConditionalPlan {
  const { entityTag, ifMatch } = operation;
  const sibling = (method: string) => operationIndex.find((op) => op.path === operation.path && op.method === method);
  const needsReader = ifMatch || (entityTag && operation.method === 'GET');
  return { entityTag, ifMatch, reader: needsReader ? (sibling('GET') ?? sibling('PATCH')) : undefined };
}
