import { describe, expect, test } from '@jest/globals';
import { renderShippingConfirmation } from '../../../src/modules/orders/shipping-confirmation.email.js';

const input = {
  language: 'en' as const,
  storeName: 'Acme <Outdoor>',
  orderNumber: 1042,
  items: [
    { title: 'Trail Runner 2', variantTitle: 'EU 42', quantity: 2 },
    { title: 'Gift wrapping', variantTitle: '', quantity: 1 },
  ],
  trackingCompany: 'DHL',
  trackingNumber: '00340434161234567890',
  trackingUrl: 'https://www.dhl.de/track?piececode=1&x="y"',
};

describe('renderShippingConfirmation', () => {
  test('lists the shipped items, the carrier, tracking number and link', () => {
    const email = renderShippingConfirmation(input);
    expect(email.subject).toBe('Your order #1042 from Acme <Outdoor> has shipped');
    expect(email.text).toContain('2 x Trail Runner 2 - EU 42\n1 x Gift wrapping');
    expect(email.text).toContain('Carrier: DHL\nTracking number: 00340434161234567890');
    expect(email.text).toContain(`Track your parcel: ${input.trackingUrl}`);
  });

  test('escapes every value from outside in the HTML', () => {
    const { html } = renderShippingConfirmation(input);
    expect(html).toContain('Acme &lt;Outdoor&gt;');
    expect(html).toContain('href="https://www.dhl.de/track?piececode=1&amp;x=&quot;y&quot;"');
    expect(html).not.toContain('<Outdoor>');
  });

  test('a tracking URL that is not http(s) (a row stored before the check) is never made a link', () => {
    for (const trackingUrl of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,x']) {
      const email = renderShippingConfirmation({ ...input, trackingUrl });
      expect(email.html).not.toContain('href');
      expect(email.html).not.toContain(trackingUrl.split(':')[0] + ':');
      expect(email.text).not.toContain(trackingUrl);
    }
    expect(renderShippingConfirmation({ ...input, trackingUrl: 'HTTPS://carrier.example/t' }).html).toContain(
      'href="HTTPS://carrier.example/t"',
    );
  });

  test('without tracking details the e-mail names none', () => {
    const email = renderShippingConfirmation({
      ...input,
      trackingCompany: null,
      trackingNumber: null,
      trackingUrl: null,
    });
    expect(email.text).not.toMatch(/Carrier|Tracking|Track/);
    expect(email.html).not.toContain('<a ');
  });

  test('German and French', () => {
    expect(renderShippingConfirmation({ ...input, language: 'de' }).text).toContain(
      'Sendungsnummer: 00340434161234567890',
    );
    expect(renderShippingConfirmation({ ...input, language: 'fr' }).subject).toBe(
      'Votre commande n° 1042 chez Acme <Outdoor> a été expédiée',
    );
  });
});
