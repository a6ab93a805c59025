import { BlockList, isIP } from 'node:net';

/**
 * TRUST_PROXY's addresses: the load balancers (single addresses or CIDR ranges) whose X-Forwarded-For is
 * believed. A connection from anywhere else is the client itself, whatever header it sends (as Express's
 * `trust proxy` with an address list, or proxy-addr, does).
 */
export interface TrustedProxies {
  /** Whether `address` (a socket's remote address) is one of the trusted balancers. */
  has(address: string): boolean;
}

// Node reports IPv4 peers of a dual-stack socket as IPv4-mapped IPv6 addresses.
const unmapped = (address: string): string => (address.startsWith('::ffff:') ? address.slice(7) : address);

/** The problem with one TRUST_PROXY entry ("10.0.0.2", "10.0.0.0/24", "fd00::/8"), or undefined when it is valid. */
export function trustedProxyProblem(entry: string): string | undefined {
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return `"${entry}" is not an IP address or CIDR range`;
  if (bits === undefined) return undefined;
  const prefix = Number(bits);
  const max = family === 4 ? 32 : 128;
  return /^\d+$/.test(bits) && prefix <= max ? undefined : `"${entry}" has a prefix length outside 0-${max}`;
}

/** The matcher of valid TRUST_PROXY entries (check them with trustedProxyProblem first). */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return {
    has(address) {
      const plain = unmapped(address);
      const family = isIP(plain);
      return family !== 0 && list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}

/**
 * The client's address of a request that arrived from `remote` with `forwardedFor` (the X-Forwarded-For value):
 * walking the header from the right, every hop that is a trusted proxy is skipped and the first one that is not
 * is the client; a connection from an untrusted address is the client itself. Never an address a client chose,
 * unless a trusted proxy wrote it.
 */
export function clientAddress(remote: string, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  let client = unmapped(remote);
  if (!forwardedFor || !trusted.has(client)) return client;
  const hops = forwardedFor.split(',').map((hop) => hop.trim());
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index];
    if (isIP(unmapped(hop)) === 0) return client; // a malformed hop: nothing to its left can be believed
    client = unmapped(hop);
    if (!trusted.has(client)) return client;
  }
  return client;
}
