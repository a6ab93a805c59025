import type { Tx } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Ctx } from '../../shared/context.js';
import { invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';

type LineInput = components['schemas']['PurchaseOrderLineInput'];

/** A line as written: the variant captured with its product's title and SKU. */
export interface LineRow {
  id: string;
  variantId: string;
  productId: string;
  title: string;
  sku: string | null;
  quantity: number;
  unitCost: bigint;
  position: number;
}

/** 400 on `location_id` unless it names an active location of the project that is not deleted. */
export async function checkLocation(ctx: Ctx, tx: Tx, id: string): Promise<void> {
  const location = await tx.location.findFirst({ where: { id, projectId: ctx.project.id, deletedAt: null } });
  if (!location) throw invalidField('location_id', `No location ${id} in this project.`);
  if (!location.isActive) {
    throw invalidField('location_id', `Location ${id} is inactive and cannot receive stock. Activate it first.`);
  }
}

/** 400 on `supplier_id` unless it names a company of the project (not deleted) of type supplier or both. */
export async function checkSupplier(ctx: Ctx, tx: Tx, id: string | null | undefined): Promise<void> {
  if (id === null || id === undefined) return;
  const company = await tx.company.findFirst({ where: { id, projectId: ctx.project.id, deletedAt: null } });
  if (!company) throw invalidField('supplier_id', `No company ${id} in this project.`);
  if (company.type === 'customer') {
    throw invalidField('supplier_id', `Company ${id} is a customer; a supplier is a company of type supplier or both.`);
  }
}

// A line's total (quantity x unit_cost) and the subtotal are answered as JSON numbers, exact up to 2^53 - 1.
const MAX_SUBTOTAL = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The lines to write for `input`, in the order sent: each variant must be one of the project's (its product not
 * deleted) and appear once; 400 on `lines[i].variant_id` otherwise, and on `lines` when they total more than
 * 9,007,199,254,740,991 minor units (the largest amount a JSON number holds exactly).
 */
export async function resolveLines(ctx: Ctx, tx: Tx, input: LineInput[]): Promise<LineRow[]> {
  const subtotal = input.reduce((sum, line) => sum + BigInt(line.quantity) * BigInt(line.unit_cost), 0n);
  if (subtotal > MAX_SUBTOTAL) {
    throw invalidField(
      'lines',
      `The lines total ${subtotal} minor units; a purchase order totals at most ${MAX_SUBTOTAL} (split it into several).`,
    );
  }
  const ids = [...new Set(input.map((line) => line.variant_id))];
  const variants = await tx.variant.findMany({
    where: { id: { in: ids }, projectId: ctx.project.id, product: { deletedAt: null } },
    include: { product: { select: { title: true } } },
  });
  const byId = new Map(variants.map((variant) => [variant.id, variant]));
  const seen = new Set<string>();
  return input.map((line, position) => {
    const field = `lines[${position}].variant_id`;
    const variant = byId.get(line.variant_id);
    if (!variant) throw invalidField(field, `No variant ${line.variant_id} in this project.`);
    if (seen.has(variant.id)) throw invalidField(field, `Variant ${variant.id} is listed twice; list it once.`);
    seen.add(variant.id);
    return {
      id: newId('pol_'),
      variantId: variant.id,
      productId: variant.productId,
      title: `${variant.product.title} - ${variant.title}`,
      sku: variant.sku,
      quantity: line.quantity,
      unitCost: BigInt(line.unit_cost),
      position,
    };
  });
}
