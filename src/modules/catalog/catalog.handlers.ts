import type { AreaHandlers } from '../../shared/contract.js';
import { collectionHandlers } from './collections.handlers.js';
import { productHandlers } from './products.handlers.js';

/** Every catalog operation: products and variants, collections and files. */
export const catalogHandlers = { ...productHandlers, ...collectionHandlers } satisfies AreaHandlers<'catalog'>;
