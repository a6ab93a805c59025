import type { components } from '../../generated/openapi.js';
import type { PurchaseOrder, PurchaseOrderLine } from '../../generated/prisma/client.js';

export type PurchaseOrderResource = components['schemas']['PurchaseOrder'];
/** A purchase order row with its lines in position order. */
export type PurchaseOrderRow = PurchaseOrder & { lines: PurchaseOrderLine[] };

/** A purchase order as the API shows it: lines with their totals, and the order's sums over them. */
export function toPurchaseOrderResource(order: PurchaseOrderRow): PurchaseOrderResource {
  const lines = order.lines.map((line) => ({
    id: line.id,
    variant_id: line.variantId,
    product_id: line.productId,
    title: line.title,
    sku: line.sku,
    quantity: line.quantity,
    received_quantity: line.receivedQuantity,
    unit_cost: Number(line.unitCost),
    total: Number(line.unitCost) * line.quantity,
  }));
  return {
    id: order.id,
    status: order.status as PurchaseOrderResource['status'],
    supplier_id: order.supplierId,
    location_id: order.locationId,
    currency: order.currency,
    reference: order.reference,
    note: order.note,
    expected_at: order.expectedAt,
    lines,
    total_quantity: lines.reduce((sum, line) => sum + line.quantity, 0),
    received_quantity: lines.reduce((sum, line) => sum + line.received_quantity, 0),
    subtotal: lines.reduce((sum, line) => sum + line.total, 0),
    ordered_at: order.orderedAt?.toISOString() ?? null,
    received_at: order.receivedAt?.toISOString() ?? null,
    cancelled_at: order.cancelledAt?.toISOString() ?? null,
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt.toISOString(),
  };
}
