import {
  responseValidators,
  sparseResponseValidators,
  unroutedResponseValidator,
} from '../../generated/response-validators.js';
import type { OperationId } from '../../generated/operations.js';

/**
 * Checks answers against the statuses and schemas openapi.yaml declares for their operation, with the
 * validators `npm run generate` compiled from it (src/generated/response-validators.ts). The document lets
 * an operation that takes `fields` answer `anyOf [X, XSparse]`; the check knows which was asked: the whole X
 * for a request without `fields`, XSparse (`id` and the requested properties) only for one with them.
 */
export class ContractChecker {
  /**
   * A description of what is wrong with this answer, or undefined when it matches the contract; `sparse`:
   * the request sent `fields`.
   */
  violation(
    operation: { path: string; method: string; operationId: string } | undefined,
    status: number,
    body: unknown,
    sparse = false,
  ): string | undefined {
    const where = operation
      ? `${operation.operationId} ${status}${sparse ? ' (with fields)' : ''}`
      : `unrouted ${status}`;
    const id = operation?.operationId as OperationId;
    const validate = operation
      ? ((sparse ? sparseResponseValidators[id] : undefined) ?? responseValidators[id])?.[String(status)]
      : unroutedResponseValidator;
    if (validate === undefined) return `${where}: status ${status} is not declared`;
    if (validate === null)
      return body === undefined || body === null || body === ''
        ? undefined
        : `${where}: declares no body but one was sent`;
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    return `${where}: body does not match openapi.yaml: ${errors}`;
  }
}
