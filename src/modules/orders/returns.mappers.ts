import type { components } from '../../generated/openapi.js';
import type { Return } from '../../generated/prisma/client.js';

type Schemas = components['schemas'];
export type ReturnResource = Schemas['Return'];
export type ReturnLineItem = Schemas['ReturnLineItem'];
export type ReturnStatus = Schemas['ReturnStatus'];
export type CustomerReturnResource = Schemas['CustomerReturn'];

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** A return as the merchant's API shows it (the payload of the return.* events too). */
export function toReturnResource(row: Return): ReturnResource {
  return {
    id: row.id,
    order_id: row.orderId,
    status: row.status as ReturnStatus,
    requested_by: row.requestedBy as ReturnResource['requested_by'],
    reason: row.reason as ReturnResource['reason'],
    note: row.note,
    line_items: row.lineItems as ReturnLineItem[],
    message: row.message,
    location_id: row.locationId,
    refund_id: row.refundId,
    approved_at: iso(row.approvedAt),
    rejected_at: iso(row.rejectedAt),
    received_at: iso(row.receivedAt),
    closed_at: iso(row.closedAt),
    cancelled_at: iso(row.cancelledAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A return as its customer sees it: without the merchant's location, refund link, requester and moves' times. */
export function toCustomerReturnResource(row: Return): CustomerReturnResource {
  return {
    id: row.id,
    order_id: row.orderId,
    status: row.status as ReturnStatus,
    reason: row.reason as ReturnResource['reason'],
    note: row.note,
    line_items: (row.lineItems as ReturnLineItem[]).map(({ line_item_id, line_item_index, quantity }) => ({
      line_item_id,
      line_item_index,
      quantity,
    })),
    message: row.message,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
