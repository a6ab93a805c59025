import { invalidField } from '../../shared/errors.js';
import { checkCurrencyCode } from '../../shared/iso-codes.js';

/** The checks of company fields that the contract's schema cannot express: currency in ISO 4217, website over http(s). */
export function checkCompanyFields(input: { currency?: string | null; website?: string | null }): void {
  checkCurrencyCode(input.currency);
  if (input.website && !/^https?:\/\//i.test(input.website)) {
    throw invalidField('website', 'website must be an http or https URL, e.g. https://acme.example.');
  }
}
