import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { OutboundError } from './outbound-error.js';

/** A parsed outbound URL; `hostname` is what SNI, the Host header and certificate checks use. */
export interface OutboundTarget {
  url: URL;
  /** The host as the URL parser normalized it, IPv6 brackets removed. */
  hostname: string;
  port: number;
  /** Set when the host is an IP literal, in the normalized form the URL parser produced. */
  literalIp?: string;
}

/**
 * Parses an outbound URL: only https:, no credentials. The WHATWG parser has already turned decimal,
 * octal and hex IPv4 hosts (`2130706433`, `0177.0.0.1`, `0x7f.1`) into dotted quads, so an IP host is
 * recognized here whatever form it was written in.
 */
export function parseTarget(raw: string): OutboundTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'the target is not a valid absolute URL');
  }
  if (url.protocol !== 'https:') {
    throw new OutboundError('scheme', `only https:// targets are allowed, not ${url.protocol}//`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundError('invalid_url', 'the target URL must not contain credentials');
  }
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? 443 : Number(url.port);
  return { url, hostname, port, literalIp: net.isIP(hostname) !== 0 ? hostname : undefined };
}

interface Range {
  cidr: [ipaddr.IPv4 | ipaddr.IPv6, number];
  name: string;
  /** Where an IPv4 address sits inside this IPv6 range (its byte offset); that IPv4 address decides instead. */
  embedsIpv4At?: number;
}

const range = (cidr: string, name: string, embedsIpv4At?: number): Range => ({
  cidr: ipaddr.parseCIDR(cidr),
  name,
  embedsIpv4At,
});

// First match wins, so narrower ranges come before the ranges that contain them.
const IPV4_RANGES = [
  range('0.0.0.0/8', 'unspecified ("this network")'),
  range('10.0.0.0/8', 'private network'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private network'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private network'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('255.255.255.255/32', 'broadcast'),
  range('240.0.0.0/4', 'reserved'),
];

const IPV6_RANGES = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::ffff:0:0/96', 'IPv4-mapped', 12),
  range('::/96', 'IPv4-compatible (deprecated)'),
  range('64:ff9b::/96', 'NAT64', 12),
  range('64:ff9b:1::/48', 'local-use NAT64'),
  range('100::/64', 'discard-only'),
  range('2001:db8::/32', 'documentation'),
  range('2001:2::/48', 'benchmarking'),
  range('2001::/32', 'Teredo'), // the client address inside is obfuscated; refuse the whole range
  range('2002::/16', '6to4', 2),
  range('fc00::/7', 'unique local'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local (deprecated)'),
  range('ff00::/8', 'multicast'),
];

// Everything public in IPv6 lies in global unicast; whatever is outside it is refused.
const GLOBAL_UNICAST = range('2000::/3', 'global unicast');

/**
 * The kind of non-public range holding `ip` (IPv4 or IPv6, a zone suffix ignored), or undefined for a
 * public unicast address. An address embedding IPv4 (mapped, NAT64, 6to4) is judged by that IPv4
 * address. Anything that is not an IP address is reported as such, never as public. Parsing and CIDR
 * matching are ipaddr.js's; the table (which ranges, their names, which embed IPv4) is this service's.
 */
export function nonPublicRange(ip: string): string | undefined {
  const address = ip.split('%')[0];
  // net.isIP first: ipaddr.js also accepts IPv4 forms (octal, short) that are not an address here.
  if (net.isIPv4(address)) return matchRange(ipaddr.IPv4.parse(address), IPV4_RANGES);
  if (!net.isIPv6(address)) return 'not an IP address';
  // In the URL parser's canonical hex form: ipaddr.js reads `::a.b.c.d` as IPv4-mapped (::ffff:a.b.c.d).
  const parsed = ipaddr.IPv6.parse(new URL(`https://[${address}]/`).hostname.slice(1, -1));
  for (const candidate of IPV6_RANGES) {
    if (!parsed.match(candidate.cidr)) continue;
    if (candidate.embedsIpv4At === undefined) return candidate.name;
    const bytes = parsed.toByteArray();
    const inner = new ipaddr.IPv4(bytes.slice(candidate.embedsIpv4At, candidate.embedsIpv4At + 4));
    const innerRange = matchRange(inner, IPV4_RANGES);
    return innerRange && `${candidate.name} ${inner.toString()}: ${innerRange}`;
  }
  return parsed.match(GLOBAL_UNICAST.cidr) ? undefined : 'reserved';
}

function matchRange(address: ipaddr.IPv4, ranges: Range[]): string | undefined {
  return ranges.find((candidate) => address.match(candidate.cidr))?.name;
}
