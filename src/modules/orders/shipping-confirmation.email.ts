/** The shipping-confirmation e-mail of a fulfilment: pure rendering in English, German and French. */

import type { EmailLanguage } from '../../shared/email-language.js';
import { webTrackingUrl } from './tracking-url.js';

interface Phrases {
  subject: (orderNumber: number, store: string) => string;
  greeting: string;
  intro: (orderNumber: number) => string;
  carrier: string;
  trackingNumber: string;
  track: string;
  closing: (store: string) => string;
}

const PHRASES: Record<EmailLanguage, Phrases> = {
  en: {
    subject: (n, store) => `Your order #${n} from ${store} has shipped`,
    greeting: 'Hello,',
    intro: (n) => `These items of your order #${n} are on their way:`,
    carrier: 'Carrier',
    trackingNumber: 'Tracking number',
    track: 'Track your parcel',
    closing: (store) => `Thank you,\n${store}`,
  },
  de: {
    subject: (n, store) => `Ihre Bestellung #${n} bei ${store} wurde versandt`,
    greeting: 'Guten Tag,',
    intro: (n) => `Diese Artikel Ihrer Bestellung #${n} sind unterwegs:`,
    carrier: 'Versanddienst',
    trackingNumber: 'Sendungsnummer',
    track: 'Sendung verfolgen',
    closing: (store) => `Vielen Dank,\n${store}`,
  },
  fr: {
    subject: (n, store) => `Votre commande n° ${n} chez ${store} a été expédiée`,
    greeting: 'Bonjour,',
    intro: (n) => `Ces articles de votre commande n° ${n} sont en route :`,
    carrier: 'Transporteur',
    trackingNumber: 'Numéro de suivi',
    track: 'Suivre votre colis',
    closing: (store) => `Merci,\n${store}`,
  },
};

export interface ShippingConfirmationInput {
  language: EmailLanguage;
  storeName: string;
  orderNumber: number;
  items: Array<{ title: string; variantTitle: string; quantity: number }>;
  trackingCompany: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

const itemName = (item: ShippingConfirmationInput['items'][number]) =>
  item.variantTitle ? `${item.title} - ${item.variantTitle}` : item.title;

/**
 * Renders subject, plain text and HTML of the shipping confirmation; every value from outside is escaped in the
 * HTML, and a tracking URL is shown only when it is http(s) (the contract refuses others; older rows may hold one).
 */
export function renderShippingConfirmation(input: ShippingConfirmationInput): {
  subject: string;
  text: string;
  html: string;
} {
  const p = PHRASES[input.language];
  const trackingUrl = webTrackingUrl(input.trackingUrl);
  const tracking: Array<[string, string]> = [];
  if (input.trackingCompany) tracking.push([p.carrier, input.trackingCompany]);
  if (input.trackingNumber) tracking.push([p.trackingNumber, input.trackingNumber]);
  const text = [
    p.greeting,
    '',
    p.intro(input.orderNumber),
    '',
    ...input.items.map((item) => `${item.quantity} x ${itemName(item)}`),
    ...(tracking.length ? ['', ...tracking.map(([label, value]) => `${label}: ${value}`)] : []),
    ...(trackingUrl ? ['', `${p.track}: ${trackingUrl}`] : []),
    '',
    p.closing(input.storeName),
  ].join('\n');
  const html = [
    '<!doctype html>',
    `<html lang="${input.language}"><body style="font-family:sans-serif">`,
    `<p>${escapeHtml(p.greeting)}</p>`,
    `<p>${escapeHtml(p.intro(input.orderNumber))}</p>`,
    '<ul>',
    ...input.items.map((item) => `<li>${item.quantity} x ${escapeHtml(itemName(item))}</li>`),
    '</ul>',
    ...(tracking.length
      ? [`<p>${tracking.map(([label, value]) => `${escapeHtml(label)}: ${escapeHtml(value)}`).join('<br>')}</p>`]
      : []),
    ...(trackingUrl ? [`<p><a href="${escapeHtml(trackingUrl)}">${escapeHtml(p.track)}</a></p>`] : []),
    `<p>${escapeHtml(p.closing(input.storeName)).replace(/\n/g, '<br>')}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject: p.subject(input.orderNumber, input.storeName), text, html };
}
