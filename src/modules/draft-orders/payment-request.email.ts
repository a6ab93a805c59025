/** The payment-request e-mail of a draft order: pure rendering in English, German and French. */

import { emailLanguage, type EmailLanguage } from '../../shared/email-language.js';

export { emailLanguage, type EmailLanguage };

interface Phrases {
  subject: (draftNumber: number, store: string) => string;
  greeting: string;
  intro: (draftNumber: number, store: string) => string;
  item: string;
  quantity: string;
  amount: string;
  subtotal: string;
  shipping: string;
  discount: string;
  tax: string;
  taxIncluded: string;
  total: string;
  due: (date: string) => string;
  pay: string;
  closing: (store: string) => string;
}

const PHRASES: Record<EmailLanguage, Phrases> = {
  en: {
    subject: (n, store) => `Draft order #${n} from ${store}`,
    greeting: 'Hello,',
    intro: (n, store) => `${store} has prepared draft order #${n} for you:`,
    item: 'Item',
    quantity: 'Qty',
    amount: 'Amount',
    subtotal: 'Subtotal',
    shipping: 'Shipping',
    discount: 'Discount',
    tax: 'Tax',
    taxIncluded: 'Included tax',
    total: 'Total',
    due: (date) => `Payment is due by ${date}.`,
    pay: 'Pay now',
    closing: (store) => `Thank you,\n${store}`,
  },
  de: {
    subject: (n, store) => `Bestellentwurf #${n} von ${store}`,
    greeting: 'Guten Tag,',
    intro: (n, store) => `${store} hat den Bestellentwurf #${n} für Sie vorbereitet:`,
    item: 'Artikel',
    quantity: 'Menge',
    amount: 'Betrag',
    subtotal: 'Zwischensumme',
    shipping: 'Versand',
    discount: 'Rabatt',
    tax: 'Steuer',
    taxIncluded: 'Enthaltene Steuer',
    total: 'Gesamt',
    due: (date) => `Zahlbar bis ${date}.`,
    pay: 'Jetzt bezahlen',
    closing: (store) => `Vielen Dank,\n${store}`,
  },
  fr: {
    subject: (n, store) => `Projet de commande n° ${n} de ${store}`,
    greeting: 'Bonjour,',
    intro: (n, store) => `${store} a préparé pour vous le projet de commande n° ${n} :`,
    item: 'Article',
    quantity: 'Qté',
    amount: 'Montant',
    subtotal: 'Sous-total',
    shipping: 'Livraison',
    discount: 'Remise',
    tax: 'Taxes',
    taxIncluded: 'Taxes incluses',
    total: 'Total',
    due: (date) => `Paiement à effectuer avant le ${date}.`,
    pay: 'Payer maintenant',
    closing: (store) => `Merci,\n${store}`,
  },
};

export interface PaymentRequestInput {
  language: EmailLanguage;
  storeName: string;
  draftNumber: number;
  currency: string;
  items: Array<{ title: string; variantTitle: string; quantity: number; unitPrice: number; total: number }>;
  subtotal: number;
  shippingCost: number;
  discount: number;
  tax: number;
  taxInclusive: boolean;
  total: number;
  paymentDueDate: string | null;
  /** Subject given by the caller; the translated default otherwise. */
  subject?: string;
  message?: string;
  /** Present only when the project's domain is verified. */
  payUrl: string | null;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** Formats minor units as money in the e-mail's language (12345 EUR -> "123,45 €" in German). */
export function formatMoney(minorUnits: number, currency: string, language: EmailLanguage): string {
  const format = new Intl.NumberFormat(language, { style: 'currency', currency });
  return format.format(minorUnits / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

function formatDate(date: string, language: EmailLanguage): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(`${date}T00:00:00Z`),
  );
}

const escapeHtml = (value: string) =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const itemName = (item: PaymentRequestInput['items'][number]) =>
  item.variantTitle ? `${item.title} - ${item.variantTitle}` : item.title;

/** Summary rows (label, amount) after the items; shipping, discount and tax only when not zero. */
function summaryRows(input: PaymentRequestInput, phrases: Phrases): Array<[string, number]> {
  const rows: Array<[string, number]> = [[phrases.subtotal, input.subtotal]];
  if (input.shippingCost) rows.push([phrases.shipping, input.shippingCost]);
  if (input.discount) rows.push([phrases.discount, -input.discount]);
  if (input.tax) rows.push([input.taxInclusive ? phrases.taxIncluded : phrases.tax, input.tax]);
  rows.push([phrases.total, input.total]);
  return rows;
}

/** Renders subject, plain text and HTML of the payment request; every value from outside is escaped in the HTML. */
export function renderPaymentRequest(input: PaymentRequestInput): RenderedEmail {
  const phrases = PHRASES[input.language];
  const money = (amount: number) => formatMoney(amount, input.currency, input.language);
  const subject = input.subject ?? phrases.subject(input.draftNumber, input.storeName);
  const rows = summaryRows(input, phrases);
  const due = input.paymentDueDate ? phrases.due(formatDate(input.paymentDueDate, input.language)) : null;

  const text = [
    phrases.greeting,
    '',
    ...(input.message ? [input.message, ''] : []),
    phrases.intro(input.draftNumber, input.storeName),
    '',
    ...input.items.map((item) => `${item.quantity} x ${itemName(item)}: ${money(item.total)}`),
    '',
    ...rows.map(([label, amount]) => `${label}: ${money(amount)}`),
    ...(due ? ['', due] : []),
    ...(input.payUrl ? ['', `${phrases.pay}: ${input.payUrl}`] : []),
    '',
    phrases.closing(input.storeName),
  ].join('\n');

  const cell = (value: string, align = 'left') => `<td style="padding:4px 8px;text-align:${align}">${value}</td>`;
  const html = [
    '<!doctype html>',
    `<html lang="${input.language}"><body style="font-family:sans-serif">`,
    `<p>${escapeHtml(phrases.greeting)}</p>`,
    ...(input.message ? [`<p>${escapeHtml(input.message).replace(/\n/g, '<br>')}</p>`] : []),
    `<p>${escapeHtml(phrases.intro(input.draftNumber, input.storeName))}</p>`,
    '<table style="border-collapse:collapse">',
    `<tr>${cell(escapeHtml(phrases.item))}${cell(escapeHtml(phrases.quantity), 'right')}${cell(escapeHtml(phrases.amount), 'right')}</tr>`,
    ...input.items.map(
      (item) =>
        `<tr>${cell(escapeHtml(itemName(item)))}${cell(String(item.quantity), 'right')}${cell(escapeHtml(money(item.total)), 'right')}</tr>`,
    ),
    ...rows.map(
      ([label, amount]) => `<tr>${cell(escapeHtml(label))}${cell('')}${cell(escapeHtml(money(amount)), 'right')}</tr>`,
    ),
    '</table>',
    ...(due ? [`<p>${escapeHtml(due)}</p>`] : []),
    ...(input.payUrl ? [`<p><a href="${escapeHtml(input.payUrl)}">${escapeHtml(phrases.pay)}</a></p>`] : []),
    `<p>${escapeHtml(phrases.closing(input.storeName)).replace(/\n/g, '<br>')}</p>`,
    '</body></html>',
  ].join('\n');

  return { subject, text, html };
}
