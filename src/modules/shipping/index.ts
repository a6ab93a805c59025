/** What other areas may use of shipping. */
export { shippingHandlers } from './shipping.handlers.js';
export { CarrierGateway, sharedCarrierGateway } from './carrier-gateway.js';
