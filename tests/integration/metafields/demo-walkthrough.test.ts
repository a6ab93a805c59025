import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ensureDemoProject, type DemoFile } from '../../../src/demo.js';
import type { CommerceClient } from '@commerce-api/sdk';
import { prepareDemo } from '../../setup/demo.js';
import { useApp } from '../../setup/store.js';

// A merchant's first walk through metafields, with the demo project's own keys (as `npm start` creates them).
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'metafields-demo-'));
// The demo project as a first start creates it, built once per test run (tests/setup/demo.ts).
let template: string;
beforeAll(async () => {
  template = await prepareDemo(dataDir);
}, 120_000);
const app = useApp(() => ({ config: { dataDir }, template }));
let demo: DemoFile;
let secret: CommerceClient;

beforeAll(async () => {
  demo = (await ensureDemoProject(app.deps))!;
  await app.deps.db.project.update({ where: { id: demo.project_id }, data: { rateLimitPerMinute: 1_000_000 } });
  secret = app.client(demo.keys.secret_test.token);
}, 120_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('metafields with the demo keys', () => {
  test('definitions, an all-or-nothing batch, storefront visibility and test/live separation', async () => {
    const [product, related] = (await secret.GET('/v1/products', { params: { query: { limit: 2 } } })).data!.data;
    const define = async (body: object) => {
      const { data, response } = await secret.POST('/v1/store/metafields', {
        body: { owner_type: 'product', ...body } as never,
      });
      expect(response.status).toBe(201);
      return data!.data;
    };
    await define({ label: 'Materials', value_type: 'list.single_line_text', choices: ['cotton', 'linen', 'wool'] });
    await define({ label: 'Rating', value_type: 'rating' });
    await define({ label: 'Package weight', value_type: 'measurement', storefront_visible: false });
    await define({ label: 'Related product', value_type: 'product_reference' });

    const bad = await secret.PUT('/v1/products/{id}/metafields', {
      params: { path: { id: product.id } },
      body: {
        materials: ['cotton'],
        rating: 7,
        'package-weight': { value: 1.2, unit: 'kg' },
        'related-product': related.id,
      },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error!.error).toMatchObject({ code: 'invalid_request', field: 'rating' });
    expect(
      (await secret.GET('/v1/products/{id}/metafields', { params: { path: { id: product.id } } })).data!.data,
    ).toEqual({});

    const good = await secret.PUT('/v1/products/{id}/metafields', {
      params: { path: { id: product.id } },
      body: {
        materials: ['cotton', 'wool'],
        rating: 4,
        'package-weight': { value: 1.2, unit: 'kg' },
        'related-product': related.id,
      },
    });
    expect(good.response.status).toBe(200);
    expect(Object.keys(good.data!.data)).toEqual(['materials', 'rating', 'package-weight', 'related-product']);
    expect(good.data!.data['package-weight']).toEqual({
      slug: 'package-weight',
      label: 'Package weight',
      type: 'measurement',
      choices: null,
      value: { value: 1.2, unit: 'kg' },
    });

    const storefront = await app.client(demo.keys.publishable_test.token).GET('/v1/products/{id}', {
      params: { path: { id: product.id }, query: { expand: ['metafields'] } },
    });
    expect(Object.keys(storefront.data!.data.metafields!)).toEqual(['materials', 'rating', 'related-product']);

    const live = app.client(demo.keys.secret_live.token);
    expect(
      (await live.GET('/v1/products/{id}/metafields', { params: { path: { id: product.id } } })).data!.data,
    ).toEqual({});
    expect(
      (await live.GET('/v1/products/{id}', { params: { path: { id: product.id }, query: { expand: ['metafields'] } } }))
        .data!.data.metafields,
    ).toEqual({});
  });
});
