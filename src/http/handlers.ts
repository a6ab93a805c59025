import { catalogHandlers } from '../modules/catalog/catalog.handlers.js';
import { checkoutHandlers } from '../modules/checkouts/checkouts.handlers.js';
import { customerAuthHandlers } from '../modules/customer-auth/customer-auth.handlers.js';
import { companyHandlers } from '../modules/companies/companies.handlers.js';
import { customerGroupHandlers } from '../modules/customer-groups/customer-groups.handlers.js';
import { customerHandlers } from '../modules/customers/customers.handlers.js';
import { draftOrderHandlers } from '../modules/draft-orders/draft-orders.handlers.js';
import { healthDocsHandlers } from '../modules/health-docs/health-docs.handlers.js';
import { inventoryHandlers } from '../modules/inventory/inventory.handlers.js';
import { locationHandlers } from '../modules/locations/locations.handlers.js';
import { metafieldHandlers } from '../modules/metafields/metafields.handlers.js';
import { orderHandlers } from '../modules/orders/orders.handlers.js';
import { searchHandlers } from '../modules/search/search.handlers.js';
import { priceListHandlers } from '../modules/price-lists/price-lists.handlers.js';
import { purchaseOrderHandlers } from '../modules/purchase-orders/purchase-orders.handlers.js';
import { navigationHandlers } from '../modules/navigation/navigation.handlers.js';
import { platformHandlers } from '../modules/platform/platform.handlers.js';
import { shippingHandlers } from '../modules/shipping/shipping.handlers.js';
import { storeEventHandlers } from '../modules/store-events/store-events.handlers.js';
import { storeCreditHandlers } from '../modules/store-credit/store-credit.handlers.js';
import { webhookHandlers } from '../modules/webhooks/webhooks.handlers.js';
import type { Handlers } from '../shared/contract.js';

/**
 * Every operation's handler, one map per area (tag); an operation of openapi.yaml without one fails to compile.
 * The maps come from each area's `<area>.handlers.ts`, not its index.ts: an index carries only what other
 * areas use, and areas that use each other (customers and customer groups, store events and webhooks)
 * would close a cycle through their handlers.
 */
export const handlers = {
  ...healthDocsHandlers,
  ...platformHandlers,
  ...storeEventHandlers,
  ...customerHandlers,
  ...storeCreditHandlers,
  ...customerAuthHandlers,
  ...catalogHandlers,
  ...inventoryHandlers,
  ...locationHandlers,
  ...draftOrderHandlers,
  ...orderHandlers,
  ...checkoutHandlers,
  ...metafieldHandlers,
  ...customerGroupHandlers,
  ...companyHandlers,
  ...priceListHandlers,
  ...searchHandlers,
  ...shippingHandlers,
  ...webhookHandlers,
  ...purchaseOrderHandlers,
  ...navigationHandlers,
} satisfies Handlers;
