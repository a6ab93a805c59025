import type { components } from '../../generated/openapi.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField } from '../../shared/errors.js';
import { checkCurrencyCode, isCountryCode } from '../../shared/iso-codes.js';
import type { OutboundAgent } from '../../shared/outbound.js';
import type { CarrierGateway } from './carrier-gateway.js';
import { toFlatRate } from './shipping.mappers.js';
import {
  applicableRates,
  chooseZone,
  mergeRates,
  toAvailableRate,
  totalWeight,
  type AvailableRate,
} from './rate-selection.js';

type Lookup = components['schemas']['ShippingRateLookup'];
type CallbackRequest = components['schemas']['CarrierCallbackRequest'];

/** How carrier callbacks go out from this process. */
export interface CarrierAccess {
  gateway: CarrierGateway;
  /** config.allowPrivateNetworkTargets. */
  allowPrivate: boolean;
  agent?: OutboundAgent;
}

/**
 * The available rates for a destination and cart (openapi.yaml, `lookupShippingRates`): the matched zone's
 * applicable flat rates and, when it has a callback, its carrier's rates, cheapest first. 400 for a country or
 * currency that does not exist; never an error because of the carrier.
 */
export async function lookupRates(ctx: Ctx, input: Lookup, carriers: CarrierAccess): Promise<AvailableRate[]> {
  const country = input.country.toUpperCase();
  if (!isCountryCode(country))
    throw invalidField('country', `country ${input.country} is not an ISO 3166-1 alpha-2 country code.`);
  checkCurrencyCode(input.currency);
  // Only the zones the lookup can pick: active ones listing the country, and the rest-of-world zone.
  const candidates = await ctx.db.shippingZone.findMany({
    where: {
      projectId: ctx.project.id,
      isActive: true,
      OR: [{ countries: { has: country } }, { isRestOfWorld: true }],
    },
    select: {
      id: true,
      countries: true,
      isRestOfWorld: true,
      isActive: true,
      position: true,
      createdAt: true,
      carrierCallbackUrl: true,
    },
  });
  const zone = chooseZone(candidates, country);
  if (!zone) return [];
  const cart = { subtotal: input.subtotal, currency: input.currency, weightGrams: totalWeight(input.items) };
  const [flat, carrier] = await Promise.all([
    ctx.db.shippingRate.findMany({ where: { zoneId: zone.id, isActive: true, currency: input.currency } }),
    zone.carrierCallbackUrl ? askCarrier(ctx, zone.id, zone.carrierCallbackUrl, { ...input, country }, carriers) : [],
  ]);
  return mergeRates(applicableRates(flat.map(toFlatRate), cart).map(toAvailableRate), carrier);
}

function askCarrier(
  ctx: Ctx,
  zoneId: string,
  url: string,
  input: Lookup,
  carriers: CarrierAccess,
): Promise<AvailableRate[]> {
  const request: CallbackRequest = {
    destination: { country: input.country, state: input.state ?? null, postal_code: input.postal_code ?? null },
    items: input.items ?? [],
    subtotal: input.subtotal,
    currency: input.currency,
  };
  return carriers.gateway.rates({
    projectId: ctx.project.id,
    zoneId,
    url,
    body: JSON.stringify(request),
    currency: input.currency,
    requestId: ctx.requestId,
    log: ctx.log,
    allowPrivate: carriers.allowPrivate,
    agent: carriers.agent,
  });
}
