import { recordEvent, type StoreEventInput } from '../../src/modules/store-events/store-events.recorder.js';
import type { TestApp } from '../setup/test-app.js';
import { keyCtx } from '../setup/ctx.js';

/** A store event input with realistic defaults. */
export function buildStoreEvent(overrides: Partial<StoreEventInput> = {}): StoreEventInput {
  return {
    type: 'product.updated',
    resourceType: 'product',
    resourceId: 'prod_01jd5kx8m2n4p6q8r0s2t4v6w8',
    summary: 'Product "Trail Runner" updated (price)',
    changes: { price: { from: 12900, to: 11900 } },
    ...overrides,
  };
}

/** Records a store event for the project as the given key, in its own transaction. */
export async function createStoreEvent(
  app: TestApp,
  projectId: string,
  keyId: string,
  overrides: Partial<StoreEventInput> = {},
) {
  const ctx = await keyCtx(app, projectId, keyId);
  return app.deps.db.$transaction((tx) => recordEvent(tx, ctx, buildStoreEvent(overrides)));
}
