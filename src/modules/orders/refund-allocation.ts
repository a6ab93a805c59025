import type { Order } from '../../generated/prisma/client.js';
import { allocateAmount, paidForUnits } from '../discounts/index.js';
import type { OrderLineItemResource, RefundLineItem } from './orders.mappers.js';

/**
 * What each line of the order was paid (openapi.yaml, the discounts tag, "Refunds"): its total less its part of the
 * reductions (`discount`), plus, when the order's tax was added to the prices (exclusive), its part of that tax in
 * proportion to what each line paid before tax (leftover minor units to the largest lines).
 */
export function paidPerLine(order: Order): number[] {
  const items = order.lineItems as OrderLineItemResource[];
  const net = items.map((item) => item.total - (item.discount ?? 0));
  const inclusive = (order.taxData as { tax_inclusive?: boolean } | null)?.tax_inclusive ?? false;
  if (inclusive || order.tax === 0n) return net;
  const tax = allocateAmount(Number(order.tax), net);
  return net.map((amount, i) => amount + tax[i]);
}

/**
 * What the order was paid for the units `lines` return, given the units of each line earlier refunds returned:
 * per line, what it was paid x units / quantity rounded down, the units left over by the rounding on its last
 * units (paidForUnits), so returning every unit in any number of refunds pays back exactly what the line paid.
 */
export function paidForReturnedUnits(
  order: Order,
  lines: Array<Pick<RefundLineItem, 'line_item_index' | 'quantity'>>,
  returnedBefore: number[],
): number {
  const items = order.lineItems as OrderLineItemResource[];
  const paid = paidPerLine(order);
  return lines.reduce(
    (sum, line) =>
      sum +
      paidForUnits(
        paid[line.line_item_index],
        items[line.line_item_index].quantity,
        returnedBefore[line.line_item_index],
        line.quantity,
      ),
    0,
  );
}
