/** What other areas may use of shipping. */
export { CarrierGateway, sharedCarrierGateway } from './carrier-gateway.js';
export { createZone } from './zones.service.js';
export { createRate } from './rates.service.js';
export { carrierAccessOf } from './carrier-access.js';
export { lookupRates, type CarrierAccess } from './rate-lookup.service.js';
export type { AvailableRate } from './rate-selection.js';
