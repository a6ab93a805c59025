import type { components } from '../../generated/openapi.js';
import type { Ctx } from '../../shared/context.js';
import { AppError, invalidField } from '../../shared/errors.js';
import { writeTx } from '../../shared/write.js';
import { receiveUnits } from '../inventory/index.js';
import type { PurchaseOrderRow } from './purchase-orders.mappers.js';
import { findPurchaseOrder, LINES_IN_ORDER, recordPurchaseOrderEvent } from './purchase-orders.service.js';

type PurchaseOrderReceive = components['schemas']['PurchaseOrderReceive'];

/** Each listed line with the units it receives now; 400 on an unknown or repeated line, or more than is outstanding. */
function checkReceipt(order: PurchaseOrderRow, input: PurchaseOrderReceive) {
  const lines = new Map(order.lines.map((line) => [line.id, line]));
  const seen = new Set<string>();
  return input.lines.map((receipt, position) => {
    const field = `lines[${position}]`;
    const line = lines.get(receipt.line_id);
    if (!line) throw invalidField(`${field}.line_id`, `This purchase order has no line ${receipt.line_id}.`);
    if (seen.has(line.id)) throw invalidField(`${field}.line_id`, `Line ${line.id} is listed twice; list it once.`);
    seen.add(line.id);
    const outstanding = line.quantity - line.receivedQuantity;
    if (receipt.quantity > outstanding) {
      throw invalidField(
        `${field}.quantity`,
        `Line ${line.id} (${line.title}) has ${outstanding} outstanding unit${outstanding === 1 ? '' : 's'}; ${receipt.quantity} cannot be received.`,
      );
    }
    return { line, quantity: receipt.quantity };
  });
}

/**
 * Receives units of an ordered or partially received order, all or nothing, in one transaction with the order's
 * row locked (so concurrent receipts never pass the ordered quantities): each line's received quantity grows, the
 * location's on hand grows through the ledger (reason purchase_order), the status becomes received when nothing
 * is outstanding, else partially_received. Records purchase_order.received.
 */
export async function receivePurchaseOrder(
  ctx: Ctx,
  id: string,
  input: PurchaseOrderReceive,
): Promise<PurchaseOrderRow> {
  return writeTx(ctx, {}, async (tx) => {
    const order = await findPurchaseOrder(ctx, tx, id, true);
    // The lines first: a line of another order (or project) is named as such whatever this order's status.
    const receipt = checkReceipt(order, input);
    if (order.status !== 'ordered' && order.status !== 'partially_received') {
      throw new AppError(
        'invalid_request',
        order.status === 'draft'
          ? 'This purchase order is a draft; mark it ordered before receiving it.'
          : `This purchase order is ${order.status}; nothing more can be received.`,
      );
    }
    for (const { line, quantity } of receipt) {
      await tx.purchaseOrderLine.update({
        where: { id: line.id },
        data: { receivedQuantity: { increment: quantity } },
      });
    }
    await receiveUnits(
      tx,
      ctx,
      receipt.map(({ line, quantity }) => ({ variant_id: line.variantId, location_id: order.locationId, quantity })),
    );
    const received = new Map(receipt.map(({ line, quantity }) => [line.id, quantity]));
    const complete = order.lines.every((line) => line.receivedQuantity + (received.get(line.id) ?? 0) >= line.quantity);
    const after = await tx.purchaseOrder.update({
      where: { id },
      data: complete ? { status: 'received', receivedAt: new Date() } : { status: 'partially_received' },
      include: LINES_IN_ORDER,
    });
    const units = receipt.reduce((sum, { quantity }) => sum + quantity, 0);
    await recordPurchaseOrderEvent(tx, ctx, 'purchase_order.received', after, `received ${units} unit(s)`);
    return after;
  });
}
