import { catalogHandlers } from '../modules/catalog/index.js';
import { customerAuthHandlers } from '../modules/customer-auth/index.js';
import { companyHandlers } from '../modules/companies/index.js';
import { customerGroupHandlers } from '../modules/customer-groups/index.js';
import { customerHandlers } from '../modules/customers/customers.handlers.js';
import { draftOrderHandlers } from '../modules/draft-orders/index.js';
import { healthDocsHandlers } from '../modules/health-docs/health-docs.handlers.js';
import { inventoryHandlers } from '../modules/inventory/index.js';
import { locationHandlers } from '../modules/locations/locations.handlers.js';
import { metafieldHandlers } from '../modules/metafields/index.js';
import { orderHandlers } from '../modules/orders/index.js';
import { searchHandlers } from '../modules/search/index.js';
import { platformHandlers } from '../modules/platform/platform.handlers.js';
import { shippingHandlers } from '../modules/shipping/index.js';
import { storeEventHandlers } from '../modules/store-events/store-events.handlers.js';
import { webhookHandlers } from '../modules/webhooks/webhooks.handlers.js';
import type { Handlers } from './contract.js';

/** Every operation's handler, one map per area (tag); an operation of openapi.yaml without one fails to compile. */
export const handlers = {
  ...healthDocsHandlers,
  ...platformHandlers,
  ...storeEventHandlers,
  ...customerHandlers,
  ...customerAuthHandlers,
  ...catalogHandlers,
  ...inventoryHandlers,
  ...locationHandlers,
  ...draftOrderHandlers,
  ...orderHandlers,
  ...metafieldHandlers,
  ...customerGroupHandlers,
  ...companyHandlers,
  ...searchHandlers,
  ...shippingHandlers,
  ...webhookHandlers,
} satisfies Handlers;
