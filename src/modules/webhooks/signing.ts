import { createHmac, randomBytes } from 'node:crypto';

/** What receivers see as the caller. */
export const USER_AGENT = 'CommerceAPI-Webhooks/1.0';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** `X-Service-Signature`: lowercase hex HMAC-SHA256 of the raw body, keyed with the whole secret string as UTF-8. */
export function serviceSignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');
}

/**
 * Standard Webhooks `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed with
 * the bytes the secret's base64 part (after `whsec_`) decodes to.
 */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`;
}

/**
 * Every header of one attempt to deliver `body` (the event `eventId`), signed at `now`. With `previousSecret`
 * (a rotation's overlap window), `webhook-signature` carries the new secret's signature and then the previous
 * one's, space-separated as Standard Webhooks allows; `X-Service-Signature` holds one value, the current secret's.
 */
export function deliveryHeaders(
  secret: string,
  eventId: string,
  body: string,
  now: Date,
  previousSecret?: string | null,
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const signatures = [secret, ...(previousSecret ? [previousSecret] : [])].map((key) =>
    standardSignature(key, eventId, timestamp, body),
  );
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-signature': serviceSignature(secret, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}
