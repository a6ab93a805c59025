import type { AppDeps } from '../../app-deps.js';
import { sharedCarrierGateway } from './carrier-gateway.js';
import type { CarrierAccess } from './rate-lookup.service.js';

/** How this process's rate lookups reach carriers: its gateway (circuit breakers, answer cache) and outbound rules. */
export const carrierAccessOf = (deps: AppDeps): CarrierAccess => ({
  gateway: deps.carrierGateway ?? sharedCarrierGateway(),
  allowPrivate: deps.config.allowPrivateNetworkTargets,
  agent: deps.outbound,
});
