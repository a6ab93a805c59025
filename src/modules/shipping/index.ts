/** What other areas may use of shipping. */
export { CarrierGateway, sharedCarrierGateway } from './carrier-gateway.js';
