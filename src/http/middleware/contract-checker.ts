import { responseValidators, unroutedResponseValidator } from '../../generated/response-validators.js';
import type { OperationId } from '../../generated/operations.js';

/**
 * Checks answers against the statuses and schemas openapi.yaml declares for their operation, with the
 * validators `npm run generate` compiled from it (src/generated/response-validators.ts). Answers with
 * `fields` need no relaxation: the document declares their sparse objects (anyOf [X, XSparse]).
 */
export class ContractChecker {
  /** A description of what is wrong with this answer, or undefined when it matches the contract. */
  violation(
    operation: { path: string; method: string; operationId: string } | undefined,
    status: number,
    body: unknown,
  ): string | undefined {
    const where = operation ? `${operation.operationId} ${status}` : `unrouted ${status}`;
    const validate = operation
      ? responseValidators[operation.operationId as OperationId]?.[String(status)]
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
