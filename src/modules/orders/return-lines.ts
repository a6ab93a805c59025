/** The pure rules of returns: which units a request may name, how a receipt splits them, what they paid. */

import type { components } from '../../generated/openapi.js';
import { invalidField } from '../../shared/errors.js';
import { lineIndexOf, lineLabel } from './line-refs.js';
import type { OrderLineItemResource } from './orders.mappers.js';
import type { ReturnLineItem } from './returns.mappers.js';

type Schemas = components['schemas'];

/**
 * The return's lines, each naming its line item by id and index; 400 for an unknown, repeated or custom item, or
 * more units than `returnable[index]` (shipped minus held by other returns and restocked by refunds).
 */
export function checkReturnLines(
  items: OrderLineItemResource[],
  returnable: number[],
  lines: Schemas['ReturnCreate']['line_items'],
): ReturnLineItem[] {
  const seen = new Set<number>();
  return lines.map((line, position) => {
    const field = `line_items[${position}]`;
    const index = lineIndexOf(items, line, field);
    const item = items[index];
    const refField = `${field}.${line.line_item_id === undefined ? 'line_item_index' : 'line_item_id'}`;
    if (seen.has(index)) throw invalidField(refField, `Line item ${index} is listed twice.`);
    seen.add(index);
    if (!item.variant_id) {
      throw invalidField(
        refField,
        `Line item ${index} (${item.title}) is a custom item: it cannot be returned; refund it directly.`,
      );
    }
    const left = Math.max(0, returnable[index]);
    if (line.quantity > left) {
      throw invalidField(
        `${field}.quantity`,
        `Line item ${index} (${lineLabel(item)}) has ${left} unit${left === 1 ? '' : 's'} that can be returned; ${line.quantity} requested.`,
      );
    }
    return {
      line_item_id: item.id,
      line_item_index: index,
      quantity: line.quantity,
      restocked_quantity: null,
      damaged_quantity: null,
    };
  });
}

/**
 * The return's lines as received: each line's damaged units as listed (default 0), the rest restocked; 400 for a
 * line the return does not hold, one listed twice, or more damaged units than the line has.
 */
export function receivedLines(
  items: OrderLineItemResource[],
  lines: ReturnLineItem[],
  damaged: Schemas['ReturnReceive']['line_items'] = [],
): ReturnLineItem[] {
  const damagedAt = new Map<number, number>();
  damaged.forEach((entry, position) => {
    const field = `line_items[${position}]`;
    const index = lineIndexOf(items, entry, field);
    const refField = `${field}.${entry.line_item_id === undefined ? 'line_item_index' : 'line_item_id'}`;
    const line = lines.find((candidate) => candidate.line_item_index === index);
    if (!line) throw invalidField(refField, `Line item ${index} is not part of this return.`);
    if (damagedAt.has(index)) throw invalidField(refField, `Line item ${index} is listed twice.`);
    if (entry.damaged_quantity > line.quantity) {
      throw invalidField(
        `${field}.damaged_quantity`,
        `Line item ${index} has ${line.quantity} unit${line.quantity === 1 ? '' : 's'} in this return; ${entry.damaged_quantity} damaged.`,
      );
    }
    damagedAt.set(index, entry.damaged_quantity);
  });
  return lines.map((line) => {
    const broken = damagedAt.get(line.line_item_index) ?? 0;
    return { ...line, restocked_quantity: line.quantity - broken, damaged_quantity: broken };
  });
}
