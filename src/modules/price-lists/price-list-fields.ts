import { invalidField } from '../../shared/errors.js';
import { isCurrencyCode } from '../../shared/iso-codes.js';

/** The checks of price-list fields the contract's schema cannot express: currency in ISO 4217, a window that ends after it starts. */
export function checkPriceListFields(input: { currency?: string; startsAt?: Date | null; endsAt?: Date | null }): void {
  if (input.currency !== undefined && !isCurrencyCode(input.currency)) {
    throw invalidField(
      'currency',
      `currency ${input.currency} is not an ISO 4217 currency code; use one such as EUR or USD.`,
    );
  }
  if (input.startsAt && input.endsAt && input.endsAt <= input.startsAt) {
    throw invalidField('ends_at', 'ends_at must be after starts_at.');
  }
}

/** A timestamp sent in a body as a Date; undefined and null pass through. */
export function toDate(value: string | null | undefined): Date | null | undefined {
  return value === undefined || value === null ? value : new Date(value);
}
