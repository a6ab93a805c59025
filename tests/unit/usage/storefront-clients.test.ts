import { describe, expect, test } from '@jest/globals';
import type { Project } from '../../../src/generated/prisma/client.js';
import { clientBlock, clientShareOf } from '../../../src/modules/usage/storefront-clients.js';

const withShare = (percent: number) => ({ storefrontClientSharePercent: percent }) as Project;

describe('clientShareOf', () => {
  test('the percent of the storefront budget, rounded down, at least 1', () => {
    expect(clientShareOf(withShare(10), 600)).toBe(60);
    expect(clientShareOf(withShare(10), 8)).toBe(1);
    expect(clientShareOf(withShare(10), 35)).toBe(3);
    expect(clientShareOf(withShare(100), 600)).toBe(600);
    expect(clientShareOf(withShare(1), 50)).toBe(1);
  });
});

describe('clientBlock', () => {
  test('a tenth of what is left, at most a twentieth of the share, at least 1', () => {
    expect(clientBlock(60, 0)).toBe(3);
    expect(clientBlock(60, 55)).toBe(1);
    expect(clientBlock(60, 60)).toBe(1);
    expect(clientBlock(100_000, 0)).toBe(5_000);
    expect(clientBlock(100_000, 99_000)).toBe(100);
    expect(clientBlock(1, 0)).toBe(1);
  });
});
