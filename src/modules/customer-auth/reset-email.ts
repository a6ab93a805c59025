/** The password-reset e-mail: pure rendering in English, German and French. */
import type { EmailLanguage } from '../../shared/email-language.js';

interface Phrases {
  subject: (store: string) => string;
  greeting: (name: string) => string;
  intro: (store: string) => string;
  action: string;
  validity: (hours: number) => string;
  ignore: string;
  closing: (store: string) => string;
}

const PHRASES: Record<EmailLanguage, Phrases> = {
  en: {
    subject: (store) => `Reset your ${store} password`,
    greeting: (name) => `Hello ${name},`,
    intro: (store) => `We received a request to reset the password of your ${store} account.`,
    action: 'Choose a new password',
    validity: (hours) => `The link works once and expires in ${hours} hours.`,
    ignore: 'If you did not ask for this, ignore this e-mail; your password stays as it is.',
    closing: (store) => `Thank you,\n${store}`,
  },
  de: {
    subject: (store) => `Passwort für ${store} zurücksetzen`,
    greeting: (name) => `Hallo ${name},`,
    intro: (store) => `wir haben eine Anfrage erhalten, das Passwort Ihres Kontos bei ${store} zurückzusetzen.`,
    action: 'Neues Passwort festlegen',
    validity: (hours) => `Der Link funktioniert einmal und läuft in ${hours} Stunden ab.`,
    ignore: 'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail; Ihr Passwort bleibt unverändert.',
    closing: (store) => `Vielen Dank,\n${store}`,
  },
  fr: {
    subject: (store) => `Réinitialisez votre mot de passe ${store}`,
    greeting: (name) => `Bonjour ${name},`,
    intro: (store) => `Nous avons reçu une demande de réinitialisation du mot de passe de votre compte ${store}.`,
    action: 'Choisir un nouveau mot de passe',
    validity: (hours) => `Le lien ne fonctionne qu'une fois et expire dans ${hours} heures.`,
    ignore: "Si vous n'êtes pas à l'origine de cette demande, ignorez cet e-mail ; votre mot de passe reste inchangé.",
    closing: (store) => `Merci,\n${store}`,
  },
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

export interface ResetEmailInput {
  language: EmailLanguage;
  storeName: string;
  firstName: string;
  resetUrl: string;
  validHours: number;
}

/** Subject, plain text and HTML of the reset e-mail; names are HTML-escaped in the HTML part. */
export function renderResetEmail(input: ResetEmailInput): { subject: string; text: string; html: string } {
  const p = PHRASES[input.language];
  const text = [
    p.greeting(input.firstName),
    '',
    p.intro(input.storeName),
    '',
    `${p.action}: ${input.resetUrl}`,
    '',
    p.validity(input.validHours),
    p.ignore,
    '',
    p.closing(input.storeName),
  ].join('\n');
  const html = [
    `<p>${escapeHtml(p.greeting(input.firstName))}</p>`,
    `<p>${escapeHtml(p.intro(input.storeName))}</p>`,
    `<p><a href="${escapeHtml(input.resetUrl)}">${escapeHtml(p.action)}</a></p>`,
    `<p>${escapeHtml(p.validity(input.validHours))}<br>${escapeHtml(p.ignore)}</p>`,
    `<p>${escapeHtml(p.closing(input.storeName)).replace('\n', '<br>')}</p>`,
  ].join('\n');
  return { subject: p.subject(input.storeName), text, html };
}
