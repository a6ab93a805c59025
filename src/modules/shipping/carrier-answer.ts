import { createHash } from 'node:crypto';
import type { AvailableRate } from './rate-selection.js';

/** A carrier answers at most 10 rates; of more, the first 10 are kept (openapi.yaml, `CarrierCallbackAnswer`). */
export const MAX_CARRIER_RATES = 10;
const MAX_PRICE = 100_000_000_000; // the API's Money maximum
const MAX_NAME = 255;
const MAX_DESCRIPTION = 1000;

/** Why a carrier's answer was not used. */
export type CarrierFailure = 'status' | 'too_large' | 'invalid_json' | 'invalid_shape';

export type CarrierAnswerResult =
  { ok: true; rates: AvailableRate[] } | { ok: false; failure: CarrierFailure; detail: string };

/** An HTTP answer of a carrier callback, as the outbound helper returns it. */
export interface CarrierHttpAnswer {
  status: number;
  body: string;
  truncated: boolean;
}

/**
 * The carrier rates an answer holds, or why it is unusable: a 2xx JSON body `{rates: [...]}` whose first
 * 10 entries each have a name, a price ≥ 0 (integer cents) and a currency (plus optional description and
 * delivery days); one bad entry rejects the answer. Rates in another currency than `currency` are
 * dropped; identical rates appear once. Ids are `carrier_` + a hash of the zone and the rate.
 */
export function parseCarrierAnswer(answer: CarrierHttpAnswer, zoneId: string, currency: string): CarrierAnswerResult {
  if (answer.status < 200 || answer.status > 299)
    return { ok: false, failure: 'status', detail: `answered HTTP ${answer.status}` };
  if (answer.truncated) return { ok: false, failure: 'too_large', detail: 'the answer exceeds the size limit' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return { ok: false, failure: 'invalid_json', detail: 'the answer is not JSON' };
  }
  const list = isObject(parsed) ? parsed.rates : undefined;
  if (!Array.isArray(list)) return { ok: false, failure: 'invalid_shape', detail: 'rates must be an array' };
  const rates: AvailableRate[] = [];
  for (const [i, entry] of list.slice(0, MAX_CARRIER_RATES).entries()) {
    const problem = rateProblem(entry);
    if (problem) return { ok: false, failure: 'invalid_shape', detail: `rates[${i}]${problem}` };
    const rate = toCarrierRate(entry as RawRate, zoneId);
    if (rate.currency === currency && !rates.some((kept) => kept.id === rate.id)) rates.push(rate);
  }
  return { ok: true, rates };
}

interface RawRate {
  name: string;
  description?: string | null;
  price: number;
  currency: string;
  min_delivery_days?: number | null;
  max_delivery_days?: number | null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown) =>
  value === undefined || value === null || (Number.isSafeInteger(value) && (value as number) >= 0);

function rateProblem(entry: unknown): string | undefined {
  if (!isObject(entry)) return ' must be an object';
  const { name, description, price, currency } = entry;
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME)
    return `.name must be a non-blank string of at most ${MAX_NAME} characters`;
  if (
    description !== undefined &&
    description !== null &&
    (typeof description !== 'string' || description.length > MAX_DESCRIPTION)
  ) {
    return `.description must be null or a string of at most ${MAX_DESCRIPTION} characters`;
  }
  if (!Number.isSafeInteger(price) || (price as number) < 0 || (price as number) > MAX_PRICE)
    return '.price must be an integer amount in cents, at least 0';
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) return '.currency must be a 3-letter currency code';
  if (!isCount(entry.min_delivery_days)) return '.min_delivery_days must be null or an integer of at least 0';
  if (!isCount(entry.max_delivery_days)) return '.max_delivery_days must be null or an integer of at least 0';
  return undefined;
}

function toCarrierRate(raw: RawRate, zoneId: string): AvailableRate {
  const rate = {
    name: raw.name,
    description: raw.description ?? null,
    price: raw.price,
    currency: raw.currency,
    min_delivery_days: raw.min_delivery_days ?? null,
    max_delivery_days: raw.max_delivery_days ?? null,
  };
  return { id: carrierRateId(zoneId, rate), ...rate, source: 'carrier' };
}

/** `carrier_` + 24 hex characters of SHA-256 over the zone and the rate's fields: the same rate of a zone always gets the same id. */
export function carrierRateId(zoneId: string, rate: Omit<AvailableRate, 'id' | 'source'>): string {
  const content = JSON.stringify([
    zoneId,
    rate.name,
    rate.description,
    rate.price,
    rate.currency,
    rate.min_delivery_days,
    rate.max_delivery_days,
  ]);
  return `carrier_${createHash('sha256').update(content).digest('hex').slice(0, 24)}`;
}
