/** What other areas may use of shipping. */
export { CarrierGateway, sharedCarrierGateway } from './carrier-gateway.js';
export { createZone } from './zones.service.js';
export { createRate } from './rates.service.js';
