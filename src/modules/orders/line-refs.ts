import { invalidField } from '../../shared/errors.js';
import type { OrderLineItemResource } from './orders.mappers.js';

/** A request's reference to an order line item: its stable id, its position (kept for compatibility), or both. */
export interface LineRef {
  line_item_id?: string;
  line_item_index?: number;
}

/**
 * The position of the line item `ref` names among the order's `items`; 400 on `${field}.line_item_id` or
 * `${field}.line_item_index` when it names none, an unknown one, or two different ones.
 */
export function lineIndexOf(items: OrderLineItemResource[], ref: LineRef, field: string): number {
  const { line_item_id: id, line_item_index: index } = ref;
  if (id === undefined && index === undefined) {
    throw invalidField(`${field}.line_item_id`, 'Name the line item by line_item_id (or line_item_index).');
  }
  if (index !== undefined && !items[index]) {
    throw invalidField(
      `${field}.line_item_index`,
      `The order has no line item ${index}: it has ${items.length} (0 to ${items.length - 1}).`,
    );
  }
  if (id === undefined) return index!;
  const found = items.findIndex((item) => item.id === id);
  if (found < 0) throw invalidField(`${field}.line_item_id`, `The order has no line item ${id}.`);
  if (index !== undefined && index !== found) {
    throw invalidField(
      `${field}.line_item_index`,
      `line_item_index ${index} names another line item than line_item_id ${id} (at index ${found}).`,
    );
  }
  return found;
}

/** "Title - Variant" of a line item, or its title alone. */
export const lineLabel = (item: OrderLineItemResource) =>
  item.variant_title ? `${item.title} - ${item.variant_title}` : item.title;
