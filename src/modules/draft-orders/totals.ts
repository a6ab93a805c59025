/**
 * Draft order totals and tax: pure functions over integers in minor units. Rates are decimals (0.19);
 * they are read as exact fractions, so 0.5 of a minor unit is detected exactly and rounded half-up.
 */

export interface TaxRate {
  country: string;
  state?: string;
  rate: number;
}

export interface TaxSettings {
  enabled: boolean;
  inclusive: boolean;
  rates: TaxRate[];
}

export interface TaxAddress {
  country: string;
  state?: string | null;
}

export interface TaxData {
  total_tax: number;
  tax_inclusive: boolean;
  source: 'store_rates';
  tax_lines: Array<{ name: string; rate: number; amount: number }>;
}

export interface TotalsInput {
  lines: Array<{ quantity: number; unitPrice: number }>;
  shippingCost: number;
  discount: number;
  /** The tax set by hand; used only while tax calculation is disabled. */
  manualTax: number;
  settings: TaxSettings;
  shippingAddress: TaxAddress | null;
  billingAddress: TaxAddress | null;
}

export interface Totals {
  subtotal: number;
  tax: number;
  taxData: TaxData | null;
  taxInclusive: boolean;
  /** May be negative: the caller refuses such a write. */
  total: number;
}

/** quantity x unit price. */
export const lineTotal = (quantity: number, unitPrice: number): number => quantity * unitPrice;

/** The rate as an exact fraction numerator / denominator (0.19 -> 19 / 100; 1e-7 -> 1 / 10000000). */
export function rateFraction(rate: number): { numerator: bigint; denominator: bigint } {
  const [mantissa, exponentText] = rate.toString().toLowerCase().split('e');
  const exponent = Number(exponentText ?? 0);
  const [whole, fraction = ''] = mantissa.split('.');
  const scale = fraction.length - exponent;
  const digits = BigInt(whole + fraction);
  return scale >= 0
    ? { numerator: digits, denominator: 10n ** BigInt(scale) }
    : { numerator: digits * 10n ** BigInt(-scale), denominator: 1n };
}

/** numerator / denominator rounded half-up (both non-negative): exactly .5 rounds up. */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

/**
 * The tax of one line, rounded half-up to the minor unit: `amount x rate` for exclusive prices, the
 * part of `amount` that is tax, `amount x rate / (1 + rate)`, for inclusive prices.
 */
export function lineTax(amount: number, rate: number, inclusive: boolean): number {
  const { numerator, denominator } = rateFraction(rate);
  const value = BigInt(amount);
  return Number(
    inclusive ? divideHalfUp(value * numerator, denominator + numerator) : divideHalfUp(value * numerator, denominator),
  );
}

/**
 * The project rate for an address: a rate naming the address's state (compared case-insensitively) wins
 * over the country's rate without a state; undefined when none matches.
 */
export function matchTaxRate(rates: TaxRate[], address: TaxAddress): TaxRate | undefined {
  const state = address.state?.trim().toLowerCase();
  const ofCountry = rates.filter((r) => r.country === address.country);
  return (
    (state ? ofCountry.find((r) => r.state?.trim().toLowerCase() === state) : undefined) ??
    ofCountry.find((r) => r.state === undefined)
  );
}

const percent = (rate: number) => `${Number((rate * 100).toFixed(4))}%`;

/**
 * Subtotal, tax and total of a draft. With tax enabled the rate comes from the shipping address, else
 * the billing address; each line's tax is rounded half-up, then summed. Inclusive tax is part of the
 * subtotal, so it is not added to the total again.
 */
export function computeTotals(input: TotalsInput): Totals {
  const subtotal = input.lines.reduce((sum, line) => sum + lineTotal(line.quantity, line.unitPrice), 0);
  const { settings } = input;
  if (!settings.enabled) {
    return {
      subtotal,
      tax: input.manualTax,
      taxData: null,
      taxInclusive: false,
      total: subtotal + input.manualTax + input.shippingCost - input.discount,
    };
  }
  const address = input.shippingAddress ?? input.billingAddress;
  const rate = address ? matchTaxRate(settings.rates, address) : undefined;
  const tax = rate
    ? input.lines.reduce(
        (sum, line) => sum + lineTax(lineTotal(line.quantity, line.unitPrice), rate.rate, settings.inclusive),
        0,
      )
    : 0;
  const taxLines = rate
    ? [
        {
          name: `${rate.state ? `${rate.country}-${rate.state}` : rate.country} tax ${percent(rate.rate)}`,
          rate: rate.rate,
          amount: tax,
        },
      ]
    : [];
  const added = settings.inclusive ? 0 : tax;
  return {
    subtotal,
    tax,
    taxData: { total_tax: tax, tax_inclusive: settings.inclusive, source: 'store_rates', tax_lines: taxLines },
    taxInclusive: settings.inclusive,
    total: subtotal + added + input.shippingCost - input.discount,
  };
}
