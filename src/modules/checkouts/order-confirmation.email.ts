/** The order-confirmation e-mail of a checkout's order: pure rendering in English, German and French. */

import type { EmailLanguage } from '../../shared/email-language.js';

interface Phrases {
  subject: (orderNumber: number, store: string) => string;
  greeting: string;
  intro: (orderNumber: number) => string;
  total: string;
  discount: string;
  closing: (store: string) => string;
}

const PHRASES: Record<EmailLanguage, Phrases> = {
  en: {
    subject: (n, store) => `Your order #${n} at ${store}`,
    greeting: 'Hello,',
    intro: (n) => `Thank you for your order #${n}:`,
    total: 'Total',
    discount: 'Discount',
    closing: (store) => `Thank you,\n${store}`,
  },
  de: {
    subject: (n, store) => `Ihre Bestellung #${n} bei ${store}`,
    greeting: 'Guten Tag,',
    intro: (n) => `vielen Dank für Ihre Bestellung #${n}:`,
    total: 'Gesamt',
    discount: 'Rabatt',
    closing: (store) => `Vielen Dank,\n${store}`,
  },
  fr: {
    subject: (n, store) => `Votre commande n° ${n} chez ${store}`,
    greeting: 'Bonjour,',
    intro: (n) => `Merci pour votre commande n° ${n} :`,
    total: 'Total',
    discount: 'Remise',
    closing: (store) => `Merci,\n${store}`,
  },
};

export interface OrderConfirmationInput {
  language: EmailLanguage;
  storeName: string;
  orderNumber: number;
  currency: string;
  total: number;
  /** What the reductions took off (shown when above 0). */
  discount?: number;
  items: Array<{ title: string; variantTitle: string; quantity: number }>;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

const itemName = (item: OrderConfirmationInput['items'][number]) =>
  item.variantTitle ? `${item.title} - ${item.variantTitle}` : item.title;

/** The amount in minor units as "199.00 EUR" (two decimals; the e-mail is a receipt, not an invoice). */
const amount = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;

/** Renders subject, plain text and HTML of the order confirmation; every value from outside is escaped in the HTML. */
export function renderOrderConfirmation(input: OrderConfirmationInput): {
  subject: string;
  text: string;
  html: string;
} {
  const p = PHRASES[input.language];
  const lines = input.items.map((item) => `${item.quantity} x ${itemName(item)}`);
  const saved = input.discount ? [`${p.discount}: -${amount(input.discount, input.currency)}`] : [];
  const total = `${p.total}: ${amount(input.total, input.currency)}`;
  const text = [
    p.greeting,
    '',
    p.intro(input.orderNumber),
    ...lines,
    '',
    ...saved,
    total,
    '',
    p.closing(input.storeName),
  ].join('\n');
  const html = [
    `<p>${escapeHtml(p.greeting)}</p>`,
    `<p>${escapeHtml(p.intro(input.orderNumber))}</p>`,
    `<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`,
    ...saved.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p>${escapeHtml(total)}</p>`,
    `<p>${escapeHtml(p.closing(input.storeName)).replace('\n', '<br>')}</p>`,
  ].join('\n');
  return { subject: p.subject(input.orderNumber, input.storeName), text, html };
}
