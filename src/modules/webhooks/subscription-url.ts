import { nonPublicRange, parseTarget } from '../../shared/outbound-address.js';
import { OutboundError } from '../../shared/outbound-error.js';

/**
 * Why `url` cannot be a subscription's target, or undefined when it can: it must be https without
 * credentials, and a host written as an IP address must be public unless `allowPrivate`. Host names are
 * not resolved here; every delivery checks what they resolve to.
 */
export function subscriptionUrlProblem(url: string, allowPrivate: boolean): string | undefined {
  try {
    const target = parseTarget(url);
    const kind = target.literalIp && !allowPrivate ? nonPublicRange(target.literalIp) : undefined;
    if (kind) return `url must not point to a non-public address (${target.literalIp} is ${kind}).`;
    return undefined;
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return error.reason === 'scheme' ? 'url must be an https:// URL.' : `url is not usable: ${error.message}.`;
  }
}
