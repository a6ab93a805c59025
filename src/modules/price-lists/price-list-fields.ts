import { invalidField } from '../../shared/errors.js';
import { storedInstantOf } from '../../shared/instants.js';
import { checkCurrencyCode } from '../../shared/iso-codes.js';

/** The checks of price-list fields the contract's schema cannot express: currency in ISO 4217, a window that ends after it starts. */
export function checkPriceListFields(input: { currency?: string; startsAt?: Date | null; endsAt?: Date | null }): void {
  checkCurrencyCode(input.currency);
  if (input.startsAt && input.endsAt && input.endsAt <= input.startsAt) {
    throw invalidField('ends_at', 'ends_at must be after starts_at.');
  }
}

/** A timestamp sent in a body's `field` as a Date (400 outside years 0001-9999); undefined and null pass through. */
export function toDate(value: string | null | undefined, field: string): Date | null | undefined {
  return value === undefined || value === null ? value : storedInstantOf(value, field);
}
