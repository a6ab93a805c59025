import { describe, expect, test } from '@jest/globals';
import {
  emailLanguage,
  formatMoney,
  renderPaymentRequest,
  type PaymentRequestInput,
} from '../../../src/modules/draft-orders/payment-request.email.js';

const input: PaymentRequestInput = {
  language: 'en',
  storeName: 'Acme Outdoor',
  draftNumber: 12,
  currency: 'EUR',
  items: [
    { title: 'Trail Runner 2', variantTitle: 'EU 42 / Black', quantity: 2, unitPrice: 9900, total: 19800 },
    { title: 'Gift wrapping', variantTitle: '', quantity: 1, unitPrice: 400, total: 400 },
  ],
  subtotal: 20200,
  shippingCost: 490,
  discount: 1000,
  tax: 3838,
  taxInclusive: false,
  total: 23528,
  paymentDueDate: '2026-12-22',
  payUrl: 'https://shop.acme-outdoor.com/checkout/dord_01jd5s0a2c4e6g8j0l2n4q6s8u',
};

describe('emailLanguage', () => {
  test("the customer's locale first, then the project's; region subtags are ignored", () => {
    expect(emailLanguage('de-AT', 'en')).toBe('de');
    expect(emailLanguage(null, 'fr')).toBe('fr');
    expect(emailLanguage(undefined, 'FR-ca')).toBe('fr');
  });

  test('languages without templates fall back to English', () => {
    expect(emailLanguage('es', 'de')).toBe('en');
    expect(emailLanguage(null, 'ja-JP')).toBe('en');
  });
});

describe('formatMoney', () => {
  test('minor units in the currency and language', () => {
    expect(formatMoney(23528, 'EUR', 'en')).toBe('€235.28');
    expect(formatMoney(23528, 'EUR', 'de')).toBe('235,28\u00a0€');
    expect(formatMoney(123450, 'EUR', 'fr')).toBe('1\u202f234,50\u00a0€');
    expect(formatMoney(1500, 'JPY', 'en')).toBe('¥1,500'); // no minor unit
  });

  test('places the symbol as Intl.NumberFormat does for the language, for every currency and language alike', () => {
    for (const language of ['en', 'de', 'fr'] as const) {
      for (const currency of ['USD', 'EUR', 'GBP']) {
        const expected = new Intl.NumberFormat(language, { style: 'currency', currency }).format(58);
        expect({ language, currency, text: formatMoney(5800, currency, language) }).toEqual({
          language,
          currency,
          text: expected,
        });
      }
    }
    expect(formatMoney(5800, 'USD', 'en')).toBe('$58.00');
    expect(formatMoney(5800, 'USD', 'fr')).toBe('58,00\u00a0$US');
  });
});

describe('renderPaymentRequest', () => {
  test('English: default subject from draft number and store name; items, totals, due date and pay link', () => {
    const email = renderPaymentRequest(input);
    expect(email.subject).toBe('Draft order #12 from Acme Outdoor');
    expect(email.text).toContain('2 x Trail Runner 2 - EU 42 / Black: €198.00');
    expect(email.text).toContain('1 x Gift wrapping: €4.00');
    expect(email.text).toContain('Subtotal: €202.00');
    expect(email.text).toContain('Shipping: €4.90');
    expect(email.text).toContain('Discount: -€10.00');
    expect(email.text).toContain('Tax: €38.38');
    expect(email.text).toContain('Total: €235.28');
    expect(email.text).toContain('Payment is due by December 22, 2026.');
    expect(email.text).toContain('Pay now: https://shop.acme-outdoor.com/checkout/dord_01jd5s0a2c4e6g8j0l2n4q6s8u');
    expect(email.html).toContain(
      '<a href="https://shop.acme-outdoor.com/checkout/dord_01jd5s0a2c4e6g8j0l2n4q6s8u">Pay now</a>',
    );
    expect(email.html).toContain('<html lang="en">');
  });

  test('German and French templates', () => {
    const de = renderPaymentRequest({ ...input, language: 'de' });
    expect(de.subject).toBe('Bestellentwurf #12 von Acme Outdoor');
    expect(de.text).toContain('Gesamt: 235,28\u00a0€');
    expect(de.text).toContain('Zahlbar bis 22. Dezember 2026.');
    expect(de.text).toContain('Jetzt bezahlen: https://');
    const fr = renderPaymentRequest({ ...input, language: 'fr' });
    expect(fr.subject).toBe('Projet de commande n° 12 de Acme Outdoor');
    expect(fr.text).toContain('Sous-total: 202,00\u00a0€');
    expect(fr.text).toContain('Payer maintenant: https://');
    expect(fr.text).toContain('22 décembre 2026');
  });

  test('a given subject and message are used; without a verified domain there is no pay link', () => {
    const email = renderPaymentRequest({
      ...input,
      subject: 'Your quote',
      message: 'As discussed <today>.',
      payUrl: null,
    });
    expect(email.subject).toBe('Your quote');
    expect(email.text.startsWith('Hello,\n\nAs discussed <today>.\n')).toBe(true);
    expect(email.text).not.toContain('Pay now');
    expect(email.html).not.toContain('<a ');
  });

  test('values from outside are escaped in the HTML', () => {
    const email = renderPaymentRequest({
      ...input,
      storeName: 'A&B <Shop>',
      message: '<script>alert(1)</script>',
      items: [{ ...input.items[0], title: '"Quoted" <b>' }],
    });
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).toContain('A&amp;B &lt;Shop&gt;');
    expect(email.html).toContain('&quot;Quoted&quot; &lt;b&gt;');
  });

  test('inclusive tax is shown as included tax; zero shipping, discount and tax are left out', () => {
    const inclusive = renderPaymentRequest({ ...input, taxInclusive: true });
    expect(inclusive.text).toContain('Included tax: €38.38');
    const plain = renderPaymentRequest({ ...input, shippingCost: 0, discount: 0, tax: 0, paymentDueDate: null });
    expect(plain.text).not.toMatch(/Shipping|Discount|Tax|due by/);
  });
});
