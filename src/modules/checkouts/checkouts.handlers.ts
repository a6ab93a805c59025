import type { AreaHandlers, Input } from '../../shared/contract.js';
import type { OperationId } from '../../generated/operations.js';
import { carrierAccessOf } from '../shipping/index.js';
import { toOrderResource } from '../orders/index.js';
import type { CheckoutKey } from './checkout-access.js';
import { completeCheckout } from './checkout-complete.js';
import { applyCheckoutCode, removeCheckoutCode } from './checkout-discounts.service.js';
import { createCheckoutFromDraft } from './checkout-from-draft.js';
import { addCheckoutLines, removeCheckoutLine, updateCheckoutLine } from './checkout-lines.service.js';
import { toCheckoutResource } from './checkouts.mappers.js';
import { receiveStripeEvent } from './stripe-webhook.service.js';
import {
  checkoutRates,
  createCheckout,
  getCheckout,
  updateCheckout,
  type CheckoutWithLines,
} from './checkouts.service.js';

/** The checkout a request names and the secret it sends (X-Checkout-Secret). */
const keyOf = (input: Pick<Input<OperationId>, 'header'> & { path: { id: string } }): CheckoutKey => ({
  id: input.path.id,
  secret: input.header('X-Checkout-Secret'),
});
const envelope = ({ checkout, lines }: CheckoutWithLines) => ({ data: toCheckoutResource(checkout, lines) });

export const checkoutHandlers = {
  createCheckout: async ({ body, ctx }) => {
    const created = await createCheckout(ctx, body);
    return { status: 201, body: { ...envelope(created), client_secret: created.clientSecret } };
  },
  createCheckoutFromDraft: async ({ body, ctx }) => {
    const created = await createCheckoutFromDraft(ctx, body.token);
    return { status: 201, body: { ...envelope(created), client_secret: created.clientSecret } };
  },
  getCheckout: async (input) => ({ status: 200, body: envelope(await getCheckout(input.ctx, keyOf(input))) }),
  updateCheckout: async (input) => ({
    status: 200,
    body: envelope(await updateCheckout(input.ctx, keyOf(input), input.body, carrierAccessOf(input.deps))),
  }),
  addCheckoutLines: async (input) => ({
    status: 201,
    body: envelope(await addCheckoutLines(input.ctx, keyOf(input), input.body.lines)),
  }),
  updateCheckoutLine: async (input) => ({
    status: 200,
    body: envelope(await updateCheckoutLine(input.ctx, keyOf(input), input.path.line_id, input.body.quantity)),
  }),
  removeCheckoutLine: async (input) => {
    await removeCheckoutLine(input.ctx, keyOf(input), input.path.line_id);
    return { status: 204, body: undefined };
  },
  applyCheckoutDiscountCode: async (input) => ({
    status: 200,
    body: envelope(await applyCheckoutCode(input.ctx, keyOf(input), input.body.code)),
  }),
  removeCheckoutDiscountCode: async (input) => ({
    status: 200,
    body: envelope(await removeCheckoutCode(input.ctx, keyOf(input), input.path.code)),
  }),
  listCheckoutShippingRates: async (input) => ({
    status: 200,
    body: { data: await checkoutRates(input.ctx, keyOf(input), carrierAccessOf(input.deps)) },
  }),
  completeCheckout: async (input) => {
    const done = await completeCheckout(input.ctx, keyOf(input), input.body, carrierAccessOf(input.deps), {
      smtp: Boolean(input.deps.config.smtpUrl),
      stripeApiBase: input.deps.config.stripeApiBase,
      paymentSlots: input.deps.paymentSlots,
    });
    if ('order' in done) return { status: 201, body: { data: toOrderResource(done.order) } };
    return { status: 202, body: envelope(done.pending) };
  },
  receiveStripeWebhook: async (input) => {
    await receiveStripeEvent(
      input.deps,
      {
        projectId: input.path.project_id,
        rawBody: input.rawBody,
        signature: input.header('Stripe-Signature') ?? '',
        requestId: input.requestId,
      },
      { smtp: Boolean(input.deps.config.smtpUrl), stripeApiBase: input.deps.config.stripeApiBase },
    );
    return { status: 200, body: { received: true } };
  },
} satisfies AreaHandlers<'checkouts'>;
