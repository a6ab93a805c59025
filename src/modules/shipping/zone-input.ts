import { nonPublicRange, parseTarget } from '../../shared/outbound-address.js';
import { OutboundError } from '../../shared/outbound-error.js';
import { invalidField } from '../../shared/errors.js';
import { isCountryCode } from '../../shared/iso-codes.js';

/**
 * The countries as stored: upper-cased, in the order given. 400 naming the first entry that is not an
 * assigned ISO 3166-1 alpha-2 code, or that repeats an earlier one (in any case).
 */
export function normalizeCountries(countries: readonly string[]): string[] {
  const seen = new Set<string>();
  return countries.map((raw, i) => {
    const code = raw.toUpperCase();
    const field = `countries[${i}]`;
    if (!isCountryCode(code))
      throw invalidField(field, `${field} is ${raw}, which is not an ISO 3166-1 alpha-2 country code.`);
    if (seen.has(code)) throw invalidField(field, `${field} repeats ${code}; list each country once.`);
    seen.add(code);
    return code;
  });
}

/**
 * Why `url` cannot be a carrier callback, or undefined when it can: https without credentials, and a host
 * written as an IP address must be public unless `allowPrivate`. Host names are not resolved here; every
 * call checks what they resolve to.
 */
export function callbackUrlProblem(url: string, allowPrivate: boolean): string | undefined {
  try {
    const target = parseTarget(url);
    const kind = target.literalIp && !allowPrivate ? nonPublicRange(target.literalIp) : undefined;
    if (kind) return `carrier_callback_url must not point to a non-public address (${target.literalIp} is ${kind}).`;
    return undefined;
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return error.reason === 'scheme'
      ? 'carrier_callback_url must be an https:// URL.'
      : `carrier_callback_url is not usable: ${error.message}.`;
  }
}

/** The callback URL to store (null clears it; undefined leaves it); 400 when it cannot be called. */
export function checkedCallbackUrl(url: string | null | undefined, allowPrivate: boolean): string | null | undefined {
  if (url === undefined || url === null) return url;
  const problem = callbackUrlProblem(url, allowPrivate);
  if (problem) throw invalidField('carrier_callback_url', problem);
  return url;
}
