import type { components } from './generated/openapi.js';

type ErrorBody = components['schemas']['Error']['error'];
/** The error codes of the contract; branch on these, not on messages. */
export type ErrorCode = ErrorBody['code'];
/** One entry of a `validation_error`'s `details`. */
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];

/** An error answer of the API (4xx/5xx), or an answer that is not the contract's error shape (`unexpected_response`). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode | 'unexpected_response';
  /** The offending field or parameter, when there is one (`invalid_request`, `conflict`). */
  readonly field?: string;
  /** One entry per invalid field (`validation_error`). */
  readonly details?: ErrorDetail[];
  /** The `X-Request-Id` of the answer, to quote when contacting support. */
  readonly requestId?: string;
  /** Seconds to wait before sending the request again (`Retry-After`: 429 `rate_limited`, 503 `service_unavailable`). */
  readonly retryAfter?: number;

  constructor(status: number, body: unknown, requestId?: string, retryAfter?: number) {
    const error = isErrorBody(body) ? body.error : undefined;
    super(error?.message ?? `Unexpected answer with status ${status}.`);
    this.status = status;
    this.code = error?.code ?? 'unexpected_response';
    if (error?.field !== undefined) this.field = error.field;
    if (error?.details !== undefined) this.details = error.details;
    if (requestId) this.requestId = requestId;
    if (retryAfter !== undefined && Number.isFinite(retryAfter)) this.retryAfter = retryAfter;
  }

  /** The ApiError of a call's answer (its status, body, `X-Request-Id` and `Retry-After`); undefined for a 2xx. */
  static of(result: CallResult<unknown>): ApiError | undefined {
    const { response } = result;
    if (response.ok) return undefined;
    const retryAfter = response.headers.get('Retry-After');
    return new ApiError(
      response.status,
      result.error,
      response.headers.get('X-Request-Id') ?? undefined,
      retryAfter === null ? undefined : Number(retryAfter),
    );
  }
}

function isErrorBody(body: unknown): body is { error: ErrorBody } {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/** What every client call resolves to: openapi-fetch's `{ data, error, response }`. */
export interface CallResult<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/**
 * The success body of a call; throws an `ApiError` (with `status`, `code`, `field`, `details`, `requestId`
 * and `retryAfter`) when the answer is not 2xx.
 */
export async function unwrap<R extends CallResult<unknown>>(call: R | Promise<R>): Promise<NonNullable<R['data']>> {
  const result = await call;
  const error = ApiError.of(result);
  if (error) throw error;
  return result.data as NonNullable<R['data']>;
}
