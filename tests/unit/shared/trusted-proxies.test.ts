import { describe, expect, test } from '@jest/globals';
import { clientAddress, trustedProxies, trustedProxyProblem } from '../../../src/shared/trusted-proxies.js';

describe('TRUST_PROXY entries', () => {
  test('addresses and CIDR ranges of both families are accepted; anything else is named', () => {
    for (const entry of ['10.0.0.2', '10.0.0.0/24', '0.0.0.0/0', '::1', 'fd00::/8'])
      expect(trustedProxyProblem(entry)).toBeUndefined();
    expect(trustedProxyProblem('true')).toBe('"true" is not an IP address or CIDR range');
    expect(trustedProxyProblem('lb.internal')).toBe('"lb.internal" is not an IP address or CIDR range');
    expect(trustedProxyProblem('10.0.0.0/33')).toBe('"10.0.0.0/33" has a prefix length outside 0-32');
    expect(trustedProxyProblem('10.0.0.0/8/1')).toBe('"10.0.0.0/8/1" is not an IP address or CIDR range');
  });
});

describe('the client address behind trusted proxies', () => {
  const trusted = trustedProxies(['10.0.0.2', '10.1.0.0/16', '::1']);

  test('a connection from an untrusted address is the client, whatever X-Forwarded-For says', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.1', trusted)).toBe('203.0.113.9');
    expect(clientAddress('::ffff:203.0.113.9', '198.51.100.1', trusted)).toBe('203.0.113.9');
  });

  test("from a trusted balancer, the address it appended (the header's last) is the client; earlier entries prove nothing", () => {
    expect(clientAddress('10.0.0.2', '198.51.100.1', trusted)).toBe('198.51.100.1');
    expect(clientAddress('::ffff:10.0.0.2', '192.0.2.99, 198.51.100.1', trusted)).toBe('198.51.100.1');
    expect(clientAddress('::1', '198.51.100.1', trusted)).toBe('198.51.100.1');
  });

  test('trusted hops are skipped from the right (balancer behind balancer); the first untrusted one is the client', () => {
    expect(clientAddress('10.0.0.2', '192.0.2.99, 198.51.100.1, 10.1.4.4', trusted)).toBe('198.51.100.1');
  });

  test('a malformed hop stops the walk at the last address known good; no header means the connection', () => {
    expect(clientAddress('10.0.0.2', 'spoofed, 10.1.4.4', trusted)).toBe('10.1.4.4');
    expect(clientAddress('10.0.0.2', 'garbage', trusted)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', undefined, trusted)).toBe('10.0.0.2');
  });
});
