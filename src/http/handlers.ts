import { catalogHandlers } from '../modules/catalog/index.js';
import { customerHandlers } from '../modules/customers/customers.handlers.js';
import { healthDocsHandlers } from '../modules/health-docs/health-docs.handlers.js';
import { inventoryHandlers } from '../modules/inventory/index.js';
import { locationHandlers } from '../modules/locations/locations.handlers.js';
import { platformHandlers } from '../modules/platform/platform.handlers.js';
import { storeEventHandlers } from '../modules/store-events/store-events.handlers.js';
import { webhookHandlers } from '../modules/webhooks/webhooks.handlers.js';
import type { Handlers } from './contract.js';

/** Every operation's handler, one map per area (tag); an operation of openapi.yaml without one fails to compile. */
export const handlers = {
  ...healthDocsHandlers,
  ...platformHandlers,
  ...storeEventHandlers,
  ...customerHandlers,
  ...catalogHandlers,
  ...inventoryHandlers,
  ...locationHandlers,
  ...webhookHandlers,
} satisfies Handlers;
