import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { OutboxEmail } from '../../../src/generated/prisma/client.js';
import { senderOf, sendOverSmtp } from '../../../src/modules/platform/mailer.js';
import { startSmtpServer, type TestSmtpServer } from '../../setup/smtp.js';

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());

const email: OutboxEmail = {
  id: 'email_01jd5q2r4t6v8x0z2b4d6f8h0j',
  projectId: 'proj_01jd5m3q7x9c2v4b6n8p0r1s2a',
  to: ['jane.doe@example.com'],
  cc: ['purchasing@example.com'],
  bcc: ['audit@example.com'],
  subject: 'Draft order #12 from Acme Outdoor',
  text: 'Pay now: https://shop.acme-outdoor.com/checkout/dord_01jd5s0a2c4e6g8j0l2n4q6s8u',
  html: '<p><a href="https://shop.acme-outdoor.com/checkout/dord_01jd5s0a2c4e6g8j0l2n4q6s8u">Pay now</a></p>',
  template: 'draft_order_invoice',
  data: {},
  locale: 'en',
  createdAt: new Date(),
};

describe('sendOverSmtp', () => {
  test('delivers to, cc and bcc through the envelope; the message names to and cc but carries no Bcc header', async () => {
    await sendOverSmtp(smtp.url, senderOf({ name: 'Acme Outdoor', domain: 'shop.acme-outdoor.com' }), email);
    const [mail] = await smtp.waitFor(1);
    expect(mail.envelope.from).toBe('noreply@shop.acme-outdoor.com');
    expect(mail.envelope.to.sort()).toEqual(['audit@example.com', 'jane.doe@example.com', 'purchasing@example.com']);
    expect(mail.parsed.subject).toBe('Draft order #12 from Acme Outdoor');
    expect(mail.parsed.from!.text).toBe('"Acme Outdoor" <noreply@shop.acme-outdoor.com>');
    expect(mail.parsed.headers.get('x-outbox-id')).toBe(email.id);
    expect(mail.raw).not.toMatch(/^bcc:/im);
    expect(mail.parsed.text).toContain('https://shop.acme-outdoor.com/checkout/dord_01jd5s0a2c4e6g8j0l2n4q6s8u');
    expect(mail.parsed.html).toContain('href="https://shop.acme-outdoor.com/checkout/dord_01jd5s0a2c4e6g8j0l2n4q6s8u"');
  });

  test('an unreachable server rejects', async () => {
    const closed = await startSmtpServer();
    await closed.close();
    await expect(sendOverSmtp(closed.url, senderOf({ name: 'Acme', domain: null }), email)).rejects.toThrow();
  });
});
