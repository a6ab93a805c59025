/** The e-mail telling a customer that their return is approved or rejected: pure rendering in English, German and French. */

import type { EmailLanguage } from '../../shared/email-language.js';

export type ReturnDecision = 'approved' | 'rejected';

interface Phrases {
  subject: (decision: ReturnDecision, orderNumber: number, store: string) => string;
  greeting: string;
  intro: (decision: ReturnDecision, orderNumber: number) => string;
  closing: (store: string) => string;
}

const PHRASES: Record<EmailLanguage, Phrases> = {
  en: {
    subject: (d, n, store) =>
      `Your return for order #${n} from ${store} is ${d === 'approved' ? 'approved' : 'declined'}`,
    greeting: 'Hello,',
    intro: (d, n) =>
      d === 'approved'
        ? `We have approved the return of these items of your order #${n}:`
        : `We cannot accept the return of these items of your order #${n}:`,
    closing: (store) => `Thank you,\n${store}`,
  },
  de: {
    subject: (d, n, store) =>
      `Ihre Rücksendung zur Bestellung #${n} bei ${store} wurde ${d === 'approved' ? 'genehmigt' : 'abgelehnt'}`,
    greeting: 'Guten Tag,',
    intro: (d, n) =>
      d === 'approved'
        ? `Wir haben die Rücksendung dieser Artikel Ihrer Bestellung #${n} genehmigt:`
        : `Wir können die Rücksendung dieser Artikel Ihrer Bestellung #${n} leider nicht annehmen:`,
    closing: (store) => `Vielen Dank,\n${store}`,
  },
  fr: {
    subject: (d, n, store) =>
      `Votre retour pour la commande n° ${n} chez ${store} a été ${d === 'approved' ? 'accepté' : 'refusé'}`,
    greeting: 'Bonjour,',
    intro: (d, n) =>
      d === 'approved'
        ? `Nous avons accepté le retour de ces articles de votre commande n° ${n} :`
        : `Nous ne pouvons pas accepter le retour de ces articles de votre commande n° ${n} :`,
    closing: (store) => `Merci,\n${store}`,
  },
};

export interface ReturnDecisionInput {
  language: EmailLanguage;
  decision: ReturnDecision;
  storeName: string;
  orderNumber: number;
  items: Array<{ name: string; quantity: number }>;
  message: string | null;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** Renders subject, plain text and HTML of the decision; every value from outside is escaped in the HTML. */
export function renderReturnDecision(input: ReturnDecisionInput): { subject: string; text: string; html: string } {
  const p = PHRASES[input.language];
  const message = input.message?.trim() ? input.message : null;
  const text = [
    p.greeting,
    '',
    p.intro(input.decision, input.orderNumber),
    '',
    ...input.items.map((item) => `${item.quantity} x ${item.name}`),
    ...(message ? ['', message] : []),
    '',
    p.closing(input.storeName),
  ].join('\n');
  const html = [
    '<!doctype html>',
    `<html lang="${input.language}"><body style="font-family:sans-serif">`,
    `<p>${escapeHtml(p.greeting)}</p>`,
    `<p>${escapeHtml(p.intro(input.decision, input.orderNumber))}</p>`,
    '<ul>',
    ...input.items.map((item) => `<li>${item.quantity} x ${escapeHtml(item.name)}</li>`),
    '</ul>',
    ...(message ? [`<p>${escapeHtml(message).replace(/\n/g, '<br>')}</p>`] : []),
    `<p>${escapeHtml(p.closing(input.storeName)).replace(/\n/g, '<br>')}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject: p.subject(input.decision, input.orderNumber, input.storeName), text, html };
}
