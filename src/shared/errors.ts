import type { components } from '../generated/openapi.js';

/** The codes of `Error`, and the checkout completion's own (`CheckoutError`, declared only where they occur). */
export type ErrorCode =
  components['schemas']['Error']['error']['code'] | components['schemas']['CheckoutError']['error']['code'];
/** An error answer's body: `Error`, or `CheckoutError` for the codes only completeCheckout answers. */
export type ErrorBody = components['schemas']['Error'] | components['schemas']['CheckoutError'];
export type ErrorDetail = NonNullable<components['schemas']['Error']['error']['details']>[number];

/** The one table from error code to HTTP status; a code without a status does not compile. */
export const httpStatusFor: Record<ErrorCode, number> = {
  invalid_request: 400,
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  account_suspended: 403,
  domain_not_verified: 403,
  not_found: 404,
  conflict: 409,
  // If-Match named no current version of the resource (openapi.yaml, "Conditional writes").
  precondition_failed: 412,
  rate_limited: 429,
  quota_exceeded: 429,
  internal_error: 500,
  // The database does not answer; retrying later succeeds (openapi.yaml, "Errors").
  service_unavailable: 503,
  // A variant of a storefront checkout is short of stock (openapi.yaml, completeCheckout).
  out_of_stock: 409,
  // The payment provider declined the checkout's payment (openapi.yaml, completeCheckout).
  payment_declined: 402,
  // The checkout pays a draft order, whose contents are the merchant's (openapi.yaml, createCheckoutFromDraft).
  checkout_locked: 409,
  // The draft order a pay link or checkout pays was completed, or cannot be paid online (createCheckoutFromDraft).
  draft_order_completed: 409,
  // A checkout's store_credit.amount is more than the customer's balance (openapi.yaml, completeCheckout).
  insufficient_store_credit: 409,
};

/** The only error type services and middleware throw; the error middleware renders it. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: {
      field?: string;
      details?: ErrorDetail[];
      headers?: Record<string, string>;
      /** Only for 405, which the code table has no code of its own for. */
      status?: 405;
    } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return this.options.status ?? httpStatusFor[this.code];
  }

  toBody(): ErrorBody {
    const { field, details } = this.options;
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(field !== undefined && { field }),
        ...(details !== undefined && { details }),
      },
    } as ErrorBody;
  }
}

/** 404 not_found with the given message. */
export const notFound = (message: string) => new AppError('not_found', message);
/** 400 invalid_request naming the offending field. */
export const invalidField = (field: string, message: string) => new AppError('invalid_request', message, { field });
/** 409 conflict, optionally naming the field. */
export const conflict = (message: string, field?: string) => new AppError('conflict', message, { field });

/**
 * Whether `error` is a unique-constraint violation (Prisma P2002, or SQLSTATE 23505 from a prepared statement,
 * whose message names the index) on a column whose name contains `column`.
 */
export function violatesUnique(error: unknown, column: string): boolean {
  const code = (error as { code?: string })?.code;
  if (code !== 'P2002' && code !== '23505') return false;
  return `${JSON.stringify((error as { meta?: unknown }).meta ?? {})} ${(error as Error).message}`.includes(column);
}

/**
 * A unique-constraint violation on one of the given columns (checked in order) as 409 conflict on its
 * field; any other error unchanged. Use as `throw conflictOn(error, {...})`.
 */
export function conflictOn(error: unknown, columns: Record<string, { field: string; message: string }>): unknown {
  for (const [column, { field, message }] of Object.entries(columns)) {
    if (violatesUnique(error, column)) return conflict(message, field);
  }
  return error;
}
