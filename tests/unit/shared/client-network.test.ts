import { describe, expect, test } from '@jest/globals';
import { clientNetwork } from '../../../src/shared/client-network.js';
import { searchClientHash } from '../../../src/modules/search/search-client.js';
import type { Ctx } from '../../../src/shared/context.js';

describe('the client a per-client budget counts', () => {
  test('an IPv4 address is itself, also when written IPv4-mapped', () => {
    expect(clientNetwork('203.0.113.9')).toBe('203.0.113.9');
    expect(clientNetwork('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  test('every IPv6 address of one /56 network is that network, whatever its form', () => {
    for (const address of [
      '2001:db8:77::1',
      '2001:db8:77:ff:ffff:ffff:ffff:ffff',
      '2001:DB8:77:12::abcd',
      'fe80::1%eth0',
    ])
      expect(clientNetwork(address)).toBe(address.startsWith('fe80') ? 'fe80::/56' : '2001:db8:77::/56');
    expect(clientNetwork('2001:db8:77:100::1')).toBe('2001:db8:77:100::/56');
  });

  test('what is not an address is returned as it is', () => {
    expect(clientNetwork('')).toBe('');
    expect(clientNetwork('unknown')).toBe('unknown');
  });

  test('search counts addresses of one /56 as one distinct client, and another /56 as another', () => {
    const ctx = {
      actor: { kind: 'api_key', id: 'key_x', keyType: 'publishable' },
      project: { id: 'proj_x', signingSecret: 's' },
    } as unknown as Ctx;
    expect(searchClientHash(ctx, '2001:db8:9:1::1')).toBe(searchClientHash(ctx, '2001:db8:9:2::2'));
    expect(searchClientHash(ctx, '2001:db8:9:100::1')).not.toBe(searchClientHash(ctx, '2001:db8:9:1::1'));
  });
});
