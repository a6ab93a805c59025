import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CommerceClient } from '@commerce-api/sdk';
import { ensureDemoProject } from '../../../src/demo.js';
import { prepareDemo } from '../../setup/demo.js';
import { search as searchAnswer } from '../../setup/requests.js';
import { useApp } from '../../setup/store.js';

// The demo project as a first start creates it (its catalogue: 60 products with stock at two locations), built
// once per test run (tests/setup/demo.ts).
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'demo-sentences-'));
let template: string;
beforeAll(async () => {
  template = await prepareDemo(dataDir);
}, 600_000);
const app = useApp(() => ({ config: { dataDir }, template }));
let api: CommerceClient;
beforeAll(async () => {
  api = app.client((await ensureDemoProject(app.deps))!.keys.secret_test.token);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const search = async (q: string) => (await searchAnswer(api, { q, explain: true })).products;

describe('shoppers typing sentences and titles, on the demo catalogue', () => {
  test('a sentence naming a product type and a material, with words no product holds: those products first', async () => {
    const result = await search('comfortable linen shirt for a summer wedding');
    expect(result.relaxation).toMatchObject({ strict_total: 0, dropped_words: ['comfortable', 'summer', 'wedding'] });
    const linen = result.data.filter((p) => p.product_type === 'Shirts' && /linen/i.test(p.title));
    expect(linen.length).toBeGreaterThanOrEqual(2);
    expect(result.data.slice(0, linen.length)).toEqual(linen);
    expect(result.data[0].explain!.dropped_words).toEqual(['comfortable', 'summer', 'wedding']);
    // Then the other shirts: one word matched, the head noun.
    expect(result.data[linen.length].product_type).toBe('Shirts');
  });

  test('the head noun of a sentence decides between products matching as many words', async () => {
    const result = await search('warm merino beanie for winter hikes');
    expect(result.data[0]).toMatchObject({ title: 'Northpeak Merino Beanie', relaxed: true });
    expect(result.data[0].explain!.dropped_words).toEqual(expect.arrayContaining(['warm']));
  });

  test('a full product title returns that product first and products of its kind after it', async () => {
    const result = await search('Stormline Insulated Hoodie');
    expect(result.data[0]).toMatchObject({ title: 'Stormline Insulated Hoodie', relaxed: false });
    expect(result.data.length).toBeGreaterThan(5);
    expect(result.data.slice(1, 6).every((p) => p.product_type === 'Jackets' && p.relaxed)).toBe(true);
  });
});
