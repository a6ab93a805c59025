import { OutboundError } from './outbound-error.js';

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EHOSTDOWN',
  'ENETDOWN',
]);
const TLS_CODE = /^ERR_(TLS|SSL)_|CERT|SELF_SIGNED|UNABLE_TO_/;

/**
 * Names what went wrong with one outbound request as an OutboundError, whose message has the host and
 * an error code only. The original error is not attached: undici's parser errors carry the peer's raw
 * bytes. Only a caller's own mistake (an invalid header, a bad argument) is returned unchanged.
 * `timedOutAfterMs` is set when the request's total budget ran out.
 */
export function toOutboundError(error: unknown, hostname: string, timedOutAfterMs?: number): unknown {
  if (error instanceof OutboundError) return error;
  if (timedOutAfterMs !== undefined) {
    return new OutboundError('timeout', `"${hostname}" did not answer within ${timedOutAfterMs} ms`);
  }
  if (error instanceof TypeError || error instanceof RangeError) return error;
  const rawCode = (error as { code?: unknown } | null)?.code;
  const code = typeof rawCode === 'string' || typeof rawCode === 'number' ? String(rawCode) : '';
  if (code === 'UND_ERR_INVALID_ARG') return error;
  const fail = (reason: OutboundError['reason'], what: string, shown = code) =>
    new OutboundError(reason, `${what} "${hostname}"${shown ? ` (${shown})` : ''}`);
  if (TIMEOUT_CODES.has(code)) return fail('timeout', 'timed out talking to');
  if (CONNECT_CODES.has(code)) return fail('connect', 'could not connect to');
  if (TLS_CODE.test(code)) return fail('tls', 'TLS failed with');
  if ((error as Error | null)?.name === 'HTTPParserError' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return fail('protocol', 'invalid HTTP from', code || 'not HTTP/1.1');
  }
  return fail('network', 'connection failed with');
}
