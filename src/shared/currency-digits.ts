/**
 * Minor units of currencies: how many decimal digits a currency's minor unit has (USD 2: cents; JPY 0: yen;
 * KWD 3: fils), as the service shows money (Intl's currency digits, the ones the e-mails format amounts with).
 */

const digitsCache = new Map<string, number>();

/** The decimal digits of `currency`'s minor unit (2 when Intl does not know the code). */
export function minorUnitDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
    } catch {
      digits = undefined;
    }
    digits ??= 2;
    digitsCache.set(currency, digits);
  }
  return digits;
}

/**
 * The factor that turns minor units of `from` into minor units of `to`, for `rate` units of `to` per unit of `from`:
 * `rate x 10^(digits of to - digits of from)`, the power of ten applied to the decimal digits of `rate` (150 from USD
 * to JPY -> 1.5; 0.3 from USD to KWD -> 3), so no binary rounding is added.
 */
export function minorUnitRate(rate: number, from: string, to: string): number {
  const shift = minorUnitDigits(to) - minorUnitDigits(from);
  if (shift === 0) return rate;
  const [mantissa, exponent] = rate.toExponential().split('e');
  return Number(`${mantissa}e${Number(exponent) + shift}`);
}
