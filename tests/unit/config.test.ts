import { describe, expect, test } from '@jest/globals';
import { loadConfig } from '../../src/config.js';

const server = { DATABASE_URL: 'postgres://app:secret@10.0.0.5:6432/commerce' };

describe('loadConfig: settings that cannot keep their guarantees are refused with the fix', () => {
  test('TRUST_PROXY=true is refused: it must name the load balancers', () => {
    expect(() => loadConfig({ ...server, TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY=true would believe an X-Forwarded-For sent by any client\. Set TRUST_PROXY to the load balancers' addresses/,
    );
    expect(() => loadConfig({ ...server, TRUST_PROXY: '10.0.0.2,lb' })).toThrow(
      /TRUST_PROXY: "lb" is not an IP address or CIDR range/,
    );
  });

  test('TRUST_PROXY with addresses trusts exactly those', () => {
    const config = loadConfig({ ...server, TRUST_PROXY: '10.0.0.2, 10.0.1.0/24' });
    expect(config.trustProxy).toBe(true);
    expect(config.trustedProxies).toEqual(['10.0.0.2', '10.0.1.0/24']);
    expect(loadConfig(server).trustProxy).toBe(false);
  });

  test('NODE_ENV=production is refused on the embedded database and with DEMO_PROJECT=true', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/NODE_ENV=production needs DATABASE_URL/);
    expect(() => loadConfig({ ...server, NODE_ENV: 'production', DEMO_PROJECT: 'true' })).toThrow(
      /NODE_ENV=production with DEMO_PROJECT=true: the demo project is for development; unset DEMO_PROJECT/,
    );
  });

  test('the demo project: always on the embedded database, with DATABASE_URL only when asked for', () => {
    expect(loadConfig({}).demoProject).toBe(true);
    expect(loadConfig(server).demoProject).toBe(false);
    expect(loadConfig({ ...server, DEMO_PROJECT: 'true' }).demoProject).toBe(true);
    expect(loadConfig({ ...server, NODE_ENV: 'production' })).toMatchObject({ production: true, demoProject: false });
  });

  test('a refused PLATFORM_TOKEN is never repeated in the message', () => {
    expect(() => loadConfig({ ...server, PLATFORM_TOKEN: 'short-secret' })).toThrow(
      /^Invalid configuration:\n {2}PLATFORM_TOKEN must be at least 16 characters$/,
    );
  });
});

describe('loadConfig: switches that exist only to measure', () => {
  test('SEARCH_INDEX_CACHES keeps the index caches unless it is off (bench only)', () => {
    expect(loadConfig(server).searchIndexCaches).toBe(true);
    expect(loadConfig({ ...server, SEARCH_INDEX_CACHES: 'on' }).searchIndexCaches).toBe(true);
    expect(loadConfig({ ...server, SEARCH_INDEX_CACHES: 'off' }).searchIndexCaches).toBe(false);
  });
});
