import { describe, expect, test } from '@jest/globals';
import { nonPublicRange, parseTarget } from '../../../src/shared/outbound-address.js';
import { OutboundError } from '../../../src/shared/outbound-error.js';

function failure(run: () => unknown): OutboundError {
  try {
    run();
  } catch (error) {
    if (error instanceof OutboundError) return error;
    throw error;
  }
  throw new Error('expected an OutboundError');
}

/** The range a URL's host is refused for, judged after the URL parser normalized it. */
function literalRange(url: string): string | undefined {
  const target = parseTarget(url);
  if (target.literalIp === undefined) throw new Error(`${url} is not an IP literal`);
  return nonPublicRange(target.literalIp);
}

describe('parseTarget', () => {
  test.each([
    'http://example.com/hook',
    'ftp://example.com/',
    'ws://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
  ])('refuses every scheme but https: %s', (url) => {
    const error = failure(() => parseTarget(url));
    expect(error.reason).toBe('scheme');
    expect(error.message).toMatch(/only https:\/\/ targets are allowed/);
  });

  test.each(['not a url', '/relative/path', 'https://', ''])('refuses what is not an absolute URL: %j', (url) => {
    expect(failure(() => parseTarget(url)).reason).toBe('invalid_url');
  });

  test('refuses credentials in the URL', () => {
    expect(failure(() => parseTarget('https://user:secret@example.com/')).reason).toBe('invalid_url');
  });

  test('keeps the host name, port and path; a name is not an IP literal', () => {
    const target = parseTarget('https://Hooks.Example.com:8443/in?x=1#frag');
    expect(target).toMatchObject({ hostname: 'hooks.example.com', port: 8443, literalIp: undefined });
    expect(target.url.pathname + target.url.search).toBe('/in?x=1');
    expect(parseTarget('https://example.com/').port).toBe(443);
  });

  test('removes the brackets of an IPv6 literal', () => {
    expect(parseTarget('https://[2606:4700::1111]/').literalIp).toBe('2606:4700::1111');
  });
});

describe('IP literals in URLs are judged after WHATWG normalization', () => {
  test.each([
    ['decimal', 'https://2130706433/', '127.0.0.1'],
    ['octal', 'https://0177.0.0.1/', '127.0.0.1'],
    ['hex, two parts', 'https://0x7f.1/', '127.0.0.1'],
    ['hex, one part', 'https://0x7f000001/', '127.0.0.1'],
    ['octal, one part', 'https://017700000001/', '127.0.0.1'],
    ['short form', 'https://127.1/', '127.0.0.1'],
    ['trailing dot', 'https://127.0.0.1./', '127.0.0.1'],
    ['percent-encoded', 'https://%31%32%37.0.0.1/', '127.0.0.1'],
    ['full-width digits', 'https://１２７.0.0.1/', '127.0.0.1'],
  ])('%s (%s) is loopback %s', (_form, url, normalized) => {
    expect(parseTarget(url).literalIp).toBe(normalized);
    expect(literalRange(url)).toBe('loopback');
  });

  test.each([
    ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped 127.0.0.1: loopback'],
    ['https://[::ffff:7f00:1]/', 'IPv4-mapped 127.0.0.1: loopback'],
    ['https://[::ffff:10.0.0.1]/', 'IPv4-mapped 10.0.0.1: private network'],
    ['https://0.0.0.0/', 'unspecified ("this network")'],
    ['https://0/', 'unspecified ("this network")'],
    ['https://[::1]/', 'loopback'],
    ['https://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['https://[::]/', 'unspecified'],
    ['https://10.0.0.1/', 'private network'],
    ['https://169.254.169.254/', 'link-local'],
  ])('%s is refused as %s', (url, kind) => {
    expect(literalRange(url)).toBe(kind);
  });

  test('a public IP literal passes', () => {
    expect(literalRange('https://93.184.215.14/')).toBeUndefined();
    expect(literalRange('https://[2606:4700::1111]/')).toBeUndefined();
  });
});

describe('nonPublicRange', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['10.0.0.1', 'private network'],
    ['10.255.255.255', 'private network'],
    ['172.16.0.1', 'private network'],
    ['172.31.255.255', 'private network'],
    ['192.168.1.1', 'private network'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.88.99.1', '6to4 relay anycast'],
  ])('IPv4 %s is %s', (ip, kind) => {
    expect(nonPublicRange(ip)).toBe(kind);
  });

  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '11.0.0.1',
    '223.255.255.255',
    '169.253.0.1',
  ])('IPv4 %s, just outside or far from every range, is public', (ip) => {
    expect(nonPublicRange(ip)).toBeUndefined();
  });

  test.each([
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['fec0::1', 'site-local (deprecated)'],
    ['::ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1: loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped 127.0.0.1: loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped 169.254.169.254: link-local'],
    ['::ffff:0.0.0.0', 'IPv4-mapped 0.0.0.0: unspecified ("this network")'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['64:ff9b::7f00:1', 'NAT64 127.0.0.1: loopback'],
    ['64:ff9b::10.1.2.3', 'NAT64 10.1.2.3: private network'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::1', '6to4 127.0.0.1: loopback'],
    ['2002:c0a8:101::1', '6to4 192.168.1.1: private network'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard-only'],
    ['::ffff:0:7f00:1', 'reserved'],
    ['4000::1', 'reserved'],
  ])('IPv6 %s is %s', (ip, kind) => {
    expect(nonPublicRange(ip)).toBe(kind);
  });

  test.each([
    '2606:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:4860:4860::8888',
  ])('IPv6 %s is public (embedded IPv4 judged as itself)', (ip) => {
    expect(nonPublicRange(ip)).toBeUndefined();
  });

  test.each(['localhost', 'example.com', '', '1.2.3', '::ffff:300.0.0.1', '2130706433'])(
    '%j is not an IP address, never public',
    (text) => {
      expect(nonPublicRange(text)).toBe('not an IP address');
    },
  );
});
