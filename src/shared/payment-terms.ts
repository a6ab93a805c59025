export type PaymentTerms = 'due_on_receipt' | 'net_15' | 'net_30' | 'net_60' | 'net_90';

const NET_DAYS: Record<PaymentTerms, number | null> = {
  due_on_receipt: null,
  net_15: 15,
  net_30: 30,
  net_60: 60,
  net_90: 90,
};

/** The due date of terms issued at `issuedAt`: that UTC day plus the net days, at UTC midnight; null when due on receipt. */
export function paymentDueDate(terms: PaymentTerms, issuedAt: Date): Date | null {
  const days = NET_DAYS[terms];
  if (days === null) return null;
  return new Date(Date.UTC(issuedAt.getUTCFullYear(), issuedAt.getUTCMonth(), issuedAt.getUTCDate() + days));
}

/** A date column (UTC midnight) as the API writes it: YYYY-MM-DD. */
export const toDateString = (date: Date | null): string | null => (date ? date.toISOString().slice(0, 10) : null);
