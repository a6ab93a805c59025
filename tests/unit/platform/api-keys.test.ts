import { describe, expect, test } from '@jest/globals';
import { API_KEY_FORMAT, generateToken, hashToken, secretsEqual } from '../../../src/modules/platform/api-keys.js';

describe('generateToken', () => {
  test('has the class and mode prefix and 40 base62 characters', () => {
    expect(generateToken('secret', 'test')).toMatch(/^sk_test_[A-Za-z0-9]{40}$/);
    expect(generateToken('publishable', 'live')).toMatch(/^pk_live_[A-Za-z0-9]{40}$/);
    expect(API_KEY_FORMAT.test(generateToken('secret', 'live'))).toBe(true);
  });

  test('uses the whole alphabet evenly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++)
      for (const c of generateToken('secret', 'test').slice(8)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (2_000 * 40) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.15);
  });
});

describe('hashToken / secretsEqual', () => {
  test('hashes to 64 hex characters, the same every time', () => {
    const token = generateToken('secret', 'test');
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
  });
  test('compares secrets of any length', () => {
    expect(secretsEqual('abc', 'abc')).toBe(true);
    expect(secretsEqual('abc', 'abcd')).toBe(false);
    expect(secretsEqual('', 'abc')).toBe(false);
  });
});
