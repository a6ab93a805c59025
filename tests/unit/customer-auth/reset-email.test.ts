import { describe, expect, test } from '@jest/globals';
import { renderResetEmail } from '../../../src/modules/customer-auth/reset-email.js';
import { emailLanguage } from '../../../src/shared/email-language.js';

const input = {
  storeName: 'Acme <Outdoor>',
  firstName: 'Zoë & Co',
  resetUrl: 'https://shop.example.com/account/reset-password?token=abc',
  validHours: 24,
};

describe('emailLanguage', () => {
  test("the customer's locale first, then the project's; only the primary subtag counts; other languages get English", () => {
    expect(emailLanguage('de-AT', 'en')).toBe('de');
    expect(emailLanguage('FR-ca', 'de')).toBe('fr');
    expect(emailLanguage(null, 'fr-FR')).toBe('fr');
    expect(emailLanguage('ja-JP', 'de')).toBe('en');
    expect(emailLanguage(null, 'es')).toBe('en');
  });
});

describe('renderResetEmail', () => {
  test.each([
    ['en', 'Reset your Acme <Outdoor> password', 'Hello Zoë & Co,', 'expires in 24 hours'],
    ['de', 'Passwort für Acme <Outdoor> zurücksetzen', 'Hallo Zoë & Co,', 'läuft in 24 Stunden ab'],
    ['fr', 'Réinitialisez votre mot de passe Acme <Outdoor>', 'Bonjour Zoë & Co,', 'expire dans 24 heures'],
  ] as const)('%s: subject, greeting, link and validity', (language, subject, greeting, validity) => {
    const email = renderResetEmail({ ...input, language });
    expect(email.subject).toBe(subject);
    expect(email.text.split('\n')[0]).toBe(greeting);
    expect(email.text).toContain(input.resetUrl);
    expect(email.text).toContain(validity);
  });

  test('the HTML part escapes names and links the reset URL', () => {
    const { html } = renderResetEmail({ ...input, language: 'en' });
    expect(html).toContain('Hello Zoë &amp; Co,');
    expect(html).toContain('Acme &lt;Outdoor&gt;');
    expect(html).not.toContain('<Outdoor>');
    expect(html).toContain(
      '<a href="https://shop.example.com/account/reset-password?token=abc">Choose a new password</a>',
    );
  });
});
