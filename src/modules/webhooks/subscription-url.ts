import { nonPublicRange, parseTarget } from '../../shared/outbound-address.js';
import { OutboundError } from '../../shared/outbound-error.js';

/** What a developer trying a local receiver needs to read in the refusal. */
const LOCAL_TARGETS_HINT =
  'To deliver to a receiver on this machine or network during development, start the server with ALLOW_PRIVATE_NETWORK_TARGETS=true.';

/** `localhost` and its subdomains always name the loopback interface (they never reach DNS). */
const isLocalhostName = (hostname: string) => /(^|\.)localhost\.?$/i.test(hostname);

/**
 * Why `url` cannot be a subscription's target, or undefined when it can: it must be https without
 * credentials, and unless `allowPrivate` its host must not be a non-public IP address literal or `localhost`
 * (both refused with the same hint naming ALLOW_PRIVATE_NETWORK_TARGETS). Other host names are not resolved
 * here; every delivery checks what they resolve to.
 */
export function subscriptionUrlProblem(url: string, allowPrivate: boolean): string | undefined {
  try {
    const target = parseTarget(url);
    if (allowPrivate) return undefined;
    const kind = target.literalIp ? nonPublicRange(target.literalIp) : undefined;
    if (kind)
      return `url must not point to a non-public address (${target.literalIp} is ${kind}). ${LOCAL_TARGETS_HINT}`;
    if (isLocalhostName(target.hostname))
      return `url must not point to a non-public address (${target.hostname} is loopback). ${LOCAL_TARGETS_HINT}`;
    return undefined;
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return error.reason === 'scheme' ? 'url must be an https:// URL.' : `url is not usable: ${error.message}.`;
  }
}
