import { catalogHandlers } from '../modules/catalog/catalog.handlers.js';
import { collectionHandlers } from '../modules/catalog/collections.handlers.js';
import { customerHandlers } from '../modules/customers/customers.handlers.js';
import { locationHandlers } from '../modules/locations/locations.handlers.js';
import { platformHandlers } from '../modules/platform/platform.handlers.js';
import { serviceHandlers } from '../modules/service/service.handlers.js';
import { storeEventHandlers } from '../modules/store-events/store-events.handlers.js';
import type { Handlers } from './contract.js';

/** Every operation's handler; an operation of openapi.yaml without one fails to compile. */
export const handlers = {
  ...serviceHandlers,
  ...platformHandlers,
  ...storeEventHandlers,
  ...customerHandlers,
  ...catalogHandlers,
  ...collectionHandlers,
  ...locationHandlers,
} satisfies Handlers;
