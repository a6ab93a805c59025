import { createHmac } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import {
  deliveryHeaders,
  newSigningSecret,
  serviceSignature,
  standardSignature,
} from '../../../src/modules/webhooks/signing.js';

const body =
  '{"id":"evt_01jd5s1a2c4e6g8j0l2n4q6s8w","type":"customer.created","created_at":"2026-11-21T09:15:00.120Z","data":{"id":"cus_1","first_name":"Zoë"}}';

describe('signing secret', () => {
  test('is whsec_ and the base64 of 32 random bytes, new each time', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
  });
});

describe('X-Service-Signature', () => {
  test('is the lowercase hex HMAC-SHA256 of the raw body keyed with the whole secret string as UTF-8', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0XTBRr5fwxk=';
    expect(serviceSignature(secret, body)).toBe(
      createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex'),
    );
    expect(serviceSignature(secret, body)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('Standard Webhooks headers', () => {
  test('verify with the standardwebhooks library, which rejects another body, secret or a stale timestamp', () => {
    const secret = newSigningSecret();
    const now = new Date();
    const headers = deliveryHeaders(secret, 'evt_01jd5s1a2c4e6g8j0l2n4q6s8w', body, now);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('Zoë', 'Zoe'), headers)).toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    const stale = deliveryHeaders(
      secret,
      'evt_01jd5s1a2c4e6g8j0l2n4q6s8w',
      body,
      new Date(now.getTime() - 10 * 60_000),
    );
    expect(() => new Webhook(secret).verify(body, stale)).toThrow(/timestamp/i);
  });

  test("match the library's own signature for the same id, time and body", () => {
    const secret = newSigningSecret();
    const at = new Date('2026-11-21T09:15:00Z');
    expect(standardSignature(secret, 'evt_x', at.getTime() / 1000, body)).toBe(
      new Webhook(secret).sign('evt_x', at, body),
    );
  });

  test('carry the event id, the service User-Agent and the JSON content type', () => {
    const headers = deliveryHeaders(newSigningSecret(), 'evt_abc', body, new Date());
    expect(headers).toMatchObject({
      'webhook-id': 'evt_abc',
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^CommerceAPI-Webhooks\/1\.0$/),
    });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });
});

describe('a rotation overlap (a previous secret given)', () => {
  test('webhook-signature holds the new then the previous signature; each secret verifies; X-Service-Signature stays the new one', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const now = new Date();
    const headers = deliveryHeaders(current, 'evt_rot', body, now, previous);
    const seconds = Math.floor(now.getTime() / 1000);
    expect(headers['webhook-signature']).toBe(
      `${standardSignature(current, 'evt_rot', seconds, body)} ${standardSignature(previous, 'evt_rot', seconds, body)}`,
    );
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    expect(headers['x-service-signature']).toBe(serviceSignature(current, body));
    expect(deliveryHeaders(current, 'evt_rot', body, now, null)['webhook-signature']).not.toContain(' ');
  });
});
