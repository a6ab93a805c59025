import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/**
 * A local stand-in for the subset of Stripe's API the `stripe` provider uses, answered as Stripe documents it
 * (https://docs.stripe.com/api/payment_intents, https://docs.stripe.com/api/refunds): `POST /v1/payment_intents`
 * (form-encoded, Idempotency-Key honoured: the same key answers the same intent), `POST
 * /v1/payment_intents/{id}/confirm`, `GET /v1/payment_intents/{id}`, `POST /v1/payment_intents/{id}/cancel` (not
 * once it succeeded: 400 payment_intent_unexpected_state) and `POST /v1/refunds` (payment_intent, amount, metadata;
 * Idempotency-Key honoured; at most the unrefunded amount of a succeeded intent), with Stripe's test PaymentMethods:
 * `pm_card_visa` succeeds, `pm_card_chargeDeclined` answers 402 card_error card_declined (the intent back to
 * requires_payment_method), `pm_card_authenticationRequired` leaves the intent in requires_action (use_stripe_sdk)
 * until `authenticate(id)` plays the shopper's 3-D Secure step, `pm_card_refundFail` succeeds and its refunds start
 * `succeeded` and fail later (`failRefund(id)`, as Stripe's refund_fail test card). `unavailable` answers every call
 * 500 api_error (Stripe down). The real `stripe` package talks to it through its host/port/protocol options. It is
 * not Stripe: only these calls and fields.
 */
/** A project paying through the stand-in: its test keys, and checkouts unlimited per address (tests make many from one). */
export const STRIPE_PROJECT = {
  currency: 'EUR',
  payment_provider: 'stripe' as const,
  stripe_secret_key: 'sk_test_51StandInKey0123456789abcdef',
  stripe_webhook_secret: 'whsec_standInSigningSecret0123456789',
  checkouts_per_ip_per_minute: 1_000_000,
};

export interface StripeStandIn {
  /** http://127.0.0.1:<port>, for STRIPE_API_BASE (config.stripeApiBase). */
  base: string;
  intents: Map<string, PaymentIntent>;
  /** Requests received (method and path), oldest first. */
  seen: Array<{ method: string; path: string; authorization: string | undefined }>;
  refunds: Map<string, StripeRefund>;
  /** The shopper completes 3-D Secure: the intent succeeds. */
  authenticate: (id: string) => PaymentIntent;
  /** The refund fails after the fact (the refund_fail test card): status failed, failure_reason declined. */
  failRefund: (id: string) => StripeRefund;
  /** While true, every call answers 500 api_error, as when Stripe has an outage. */
  unavailable: boolean;
  /** Milliseconds every answer waits (0 by default): a slow Stripe. */
  latencyMs: number;
  close: () => Promise<void>;
}

interface PaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  status: string;
  client_secret: string;
  payment_method: string | null;
  metadata: Record<string, string>;
  next_action: unknown;
  last_payment_error: unknown;
  livemode: false;
  created: number;
}

interface StripeRefund {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  payment_intent: string;
  charge: string;
  status: string;
  reason: null;
  failure_reason?: string;
  metadata: Record<string, string>;
  balance_transaction: null;
  created: number;
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => resolve(text));
  });

/** A form field's text ('' when absent or nested). */
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** Stripe's form encoding (`metadata[checkout_id]=…`), one level of brackets deep as used here. */
function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const nested = /^(\w+)\[(\w+)\]$/.exec(key);
    if (nested) out[nested[1]] = { ...(out[nested[1]] ?? {}), [nested[2]]: value };
    else out[key] = value;
  }
  return out;
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const intents = new Map<string, PaymentIntent>();
  const refunds = new Map<string, StripeRefund>();
  const byIdempotencyKey = new Map<string, string>();
  const state = { unavailable: false, latencyMs: 0 };
  const seen: StripeStandIn['seen'] = [];
  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, {
      'Content-Type': 'application/json',
      'Request-Id': `req_${randomBytes(7).toString('hex')}`,
    });
    response.end(JSON.stringify(body));
  };
  const invalid = (response: ServerResponse, message: string, status = 400) =>
    send(response, status, { error: { type: 'invalid_request_error', message } });

  const confirm = (intent: PaymentIntent, paymentMethod: string, response: ServerResponse) => {
    intent.payment_method = paymentMethod;
    if (paymentMethod === 'pm_card_chargeDeclined') {
      intent.status = 'requires_payment_method';
      intent.payment_method = null;
      const error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      };
      intent.last_payment_error = error;
      return send(response, 402, { error: { ...error, payment_intent: { ...intent } } });
    }
    if (paymentMethod === 'pm_card_refundFail') {
      intent.status = 'succeeded';
    } else if (paymentMethod === 'pm_card_authenticationRequired') {
      intent.status = 'requires_action';
      intent.next_action = { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect' } };
    } else if (paymentMethod === 'pm_card_visa') {
      intent.status = 'succeeded';
    } else {
      return invalid(response, `No such PaymentMethod: '${paymentMethod}'`);
    }
    return send(response, 200, intent);
  };

  const refund = (form: Record<string, unknown>, request: IncomingMessage, response: ServerResponse) => {
    const key = request.headers['idempotency-key'] as string | undefined;
    if (key && byIdempotencyKey.has(key)) return send(response, 200, refunds.get(byIdempotencyKey.get(key)!));
    const intent = intents.get(text(form.payment_intent));
    if (!intent) return invalid(response, `No such payment_intent: '${text(form.payment_intent)}'`, 404);
    if (intent.status !== 'succeeded') {
      return invalid(response, `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`);
    }
    const refunded = [...refunds.values()]
      .filter((r) => r.payment_intent === intent.id && r.status !== 'failed' && r.status !== 'canceled')
      .reduce((sum, r) => sum + r.amount, 0);
    const amount = form.amount ? Number(form.amount) : intent.amount - refunded;
    if (amount > intent.amount - refunded) {
      return invalid(
        response,
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${intent.amount - refunded})`,
      );
    }
    const id = `re_${randomBytes(12).toString('hex')}`;
    const created: StripeRefund = {
      id,
      object: 'refund',
      amount,
      currency: intent.currency,
      payment_intent: intent.id,
      charge: `ch_${intent.id.slice(3)}`,
      status: 'succeeded',
      reason: null,
      metadata: (form.metadata as Record<string, string>) ?? {},
      balance_transaction: null,
      created: Math.floor(Date.now() / 1000),
    };
    refunds.set(id, created);
    if (key) byIdempotencyKey.set(key, id);
    return send(response, 200, created);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '').split('?')[0];
    const authorization = request.headers.authorization;
    seen.push({ method: request.method ?? '', path, authorization });
    if (state.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, state.latencyMs));
    if (!/^Bearer (sk|rk)_test_/.test(authorization ?? '')) {
      return send(response, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
    }
    if (state.unavailable) {
      return send(response, 500, { error: { type: 'api_error', message: 'An unknown error occurred.' } });
    }
    const form = parseForm(await readBody(request));
    if (request.method === 'POST' && path === '/v1/refunds') return refund(form, request, response);
    if (request.method === 'POST' && path === '/v1/payment_intents') {
      const key = request.headers['idempotency-key'] as string | undefined;
      if (key && byIdempotencyKey.has(key)) return send(response, 200, intents.get(byIdempotencyKey.get(key)!));
      if (!form.amount || !form.currency) return invalid(response, 'Missing required param: amount.');
      const id = `pi_${randomBytes(12).toString('hex')}`;
      const intent: PaymentIntent = {
        id,
        object: 'payment_intent',
        amount: Number(form.amount),
        currency: text(form.currency),
        status: 'requires_payment_method',
        client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
        payment_method: null,
        metadata: (form.metadata as Record<string, string>) ?? {},
        next_action: null,
        last_payment_error: null,
        livemode: false,
        created: Math.floor(Date.now() / 1000),
      };
      intents.set(id, intent);
      if (key) byIdempotencyKey.set(key, id);
      if (form.payment_method && form.confirm === 'true') return confirm(intent, text(form.payment_method), response);
      return send(response, 200, intent);
    }
    const match = /^\/v1\/payment_intents\/(pi_\w+?)(\/confirm|\/cancel)?$/.exec(path);
    const intent = match && intents.get(match[1]);
    if (!match || !intent) return invalid(response, `No such payment_intent: '${match?.[1] ?? path}'`, 404);
    if (request.method === 'GET' && !match[2]) return send(response, 200, intent);
    if (request.method === 'POST' && match[2] === '/cancel') {
      if (['succeeded', 'canceled'].includes(intent.status)) {
        return send(response, 400, {
          error: {
            type: 'invalid_request_error',
            code: 'payment_intent_unexpected_state',
            message: `You cannot cancel this PaymentIntent because it has a status of ${intent.status}.`,
          },
        });
      }
      intent.status = 'canceled';
      intent.next_action = null;
      return send(response, 200, { ...intent, cancellation_reason: null });
    }
    if (request.method === 'POST' && match[2]) {
      if (!['requires_payment_method', 'requires_confirmation'].includes(intent.status)) {
        return send(response, 400, {
          error: {
            type: 'invalid_request_error',
            code: 'payment_intent_unexpected_state',
            message: `This PaymentIntent's status is ${intent.status}.`,
          },
        });
      }
      return confirm(intent, text(form.payment_method) || (intent.payment_method ?? ''), response);
    }
    return invalid(response, `Unrecognized request URL (${request.method}: ${path}).`, 404);
  };
  const server = http.createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    intents,
    refunds,
    seen,
    get unavailable() {
      return state.unavailable;
    },
    set unavailable(value: boolean) {
      state.unavailable = value;
    },
    get latencyMs() {
      return state.latencyMs;
    },
    set latencyMs(value: number) {
      state.latencyMs = value;
    },
    failRefund: (id) => {
      const failed = refunds.get(id)!;
      failed.status = 'failed';
      failed.failure_reason = 'declined';
      return failed;
    },
    authenticate: (id) => {
      const intent = intents.get(id)!;
      intent.status = 'succeeded';
      intent.next_action = null;
      return intent;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
