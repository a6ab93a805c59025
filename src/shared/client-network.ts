import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

// Why /56: an IPv6 subscriber is given a whole network, not an address (most often a /56, at least a /64), and may
// send from any address of it; counted per address, one visitor would hold 2^64 or more per-client budgets. A /56
// per client is what most networks delegate to one subscriber (and express-rate-limit's default).
export const IPV6_CLIENT_PREFIX = 56;

/**
 * The client a per-client budget or count stands for, given a client address: an IPv4 address is itself (an
 * IPv4-mapped IPv6 address is written as that IPv4 address), an IPv6 address is its /56 network
 * (`2001:db8:77::/56`), so no visitor escapes its share by changing addresses within the network it was given.
 * Anything else is returned as it is.
 */
export function clientNetwork(address: string): string {
  const plain = address.split('%')[0];
  if (!isIPv6(plain)) return address;
  const parsed = ipaddr.IPv6.parse(plain);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  const network = parsed.toByteArray().map((byte, index) => (index < IPV6_CLIENT_PREFIX / 8 ? byte : 0));
  return `${ipaddr.fromByteArray(network).toString()}/${IPV6_CLIENT_PREFIX}`;
}
