import { describe, expect, test } from '@jest/globals';
import { renderOrderConfirmation } from '../../../src/modules/checkouts/order-confirmation.email.js';

describe('renderOrderConfirmation', () => {
  test("in the customer's language, with every outside value escaped in the HTML", () => {
    const mail = renderOrderConfirmation({
      language: 'fr',
      storeName: 'Acme <Outdoor>',
      orderNumber: 1002,
      currency: 'EUR',
      total: 20290,
      items: [{ title: 'Trail <b>Runner</b>', variantTitle: 'EU 42', quantity: 2 }],
    });
    expect(mail.subject).toBe('Votre commande n° 1002 chez Acme <Outdoor>');
    expect(mail.text).toContain('2 x Trail <b>Runner</b> - EU 42');
    expect(mail.text).toContain('Total: 202.90 EUR');
    expect(mail.html).toContain('Trail &lt;b&gt;Runner&lt;/b&gt;');
    expect(mail.html).not.toContain('<b>');
  });
});
