import type { AreaHandlers } from '../../shared/contract.js';
import { definitionHandlers } from './definitions.handlers.js';
import { valueHandlers } from './values.handlers.js';

/** Every metafield operation: definitions (store-wide) and values (per owner, per mode). */
export const metafieldHandlers = { ...definitionHandlers, ...valueHandlers } satisfies AreaHandlers<'metafields'>;
