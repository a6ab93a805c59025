import { poolOf, type Database } from '../../db/client.js';
import { preparedStatement, selectList, type Columns } from '../../db/prepared.js';
import type { DraftLineItem, DraftOrder } from '../../generated/prisma/client.js';
import { sqlList, type PageSource, type SqlCondition } from '../../shared/sql-list.js';

/** The draft-order list's pages as prepared statements (src/shared/sql-list.ts); with expand=items, one more statement for the page's items. */

const DRAFT_COLUMNS: Columns<DraftOrder> = {
  id: 'id',
  projectId: 'project_id',
  draftNumber: 'draft_number',
  status: 'status',
  customerId: 'customer_id',
  customerEmail: 'customer_email',
  subtotal: 'subtotal',
  tax: 'tax',
  taxData: 'tax_data',
  taxInclusive: 'tax_inclusive',
  shippingCost: 'shipping_cost',
  discount: 'discount',
  manualDiscount: 'manual_discount',
  discountCodes: 'discount_codes',
  discountApplications: 'discount_applications',
  total: 'total',
  currency: 'currency',
  shippingAddress: 'shipping_address',
  billingAddress: 'billing_address',
  paymentTerms: 'payment_terms',
  paymentDueDate: 'payment_due_date',
  orderId: 'order_id',
  completedAt: 'completed_at',
  itemCount: 'item_count',
  notes: 'notes',
  metadata: 'metadata',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

const ITEM_COLUMNS: Columns<DraftLineItem> = {
  id: 'id',
  draftOrderId: 'draft_order_id',
  productId: 'product_id',
  variantId: 'variant_id',
  title: 'title',
  variantTitle: 'variant_title',
  sku: 'sku',
  quantity: 'quantity',
  unitPrice: 'unit_price',
  basePrice: 'base_price',
  priceListId: 'price_list_id',
  isCustom: 'is_custom',
  note: 'note',
  position: 'position',
  createdAt: 'created_at',
};

const draftPages = sqlList<DraftOrder>('draft_orders', 'draft_orders', DRAFT_COLUMNS);

const itemsOfDrafts = preparedStatement<DraftLineItem>(
  'draft_list_items',
  `SELECT ${selectList(ITEM_COLUMNS)} FROM draft_line_items WHERE draft_order_id = ANY($1) ORDER BY draft_order_id, position`,
);

/** Pages of draft orders matching `filters`; with `withItems`, each with its line items by position. */
export function draftOrderList(
  db: Database,
  filters: ReadonlyArray<SqlCondition | false | undefined>,
  withItems: boolean,
): PageSource<DraftOrder & { items?: DraftLineItem[] }> {
  const pages = draftPages(db, filters);
  if (!withItems) return pages;
  return {
    count: () => pages.count(),
    fetch: async (args) => {
      const drafts = await pages.fetch(args);
      if (drafts.length === 0) return [];
      const ids = drafts.map((draft) => draft.id);
      const pool = poolOf(db);
      const items = pool
        ? await itemsOfDrafts(pool, [ids])
        : await db.draftLineItem.findMany({ where: { draftOrderId: { in: ids } }, orderBy: { position: 'asc' } });
      const byDraft = new Map(drafts.map((draft) => [draft.id, { ...draft, items: [] as DraftLineItem[] }]));
      for (const item of items) byDraft.get(item.draftOrderId)!.items.push(item);
      return [...byDraft.values()];
    },
  };
}

const lockDraft = preparedStatement<DraftOrder>(
  'draft_lock',
  `SELECT ${selectList(DRAFT_COLUMNS)} FROM draft_orders WHERE id = $1 AND project_id = $2 FOR UPDATE`,
);

// Run after the draft's lock is held (every write to a draft's items takes that lock first); nothing when the draft
// is not the project's or cannot be completed (it is then answered 404 or 400).
const itemsReleasing = preparedStatement<DraftLineItem>(
  'draft_items_releasing',
  `WITH completable AS (
     SELECT 1 FROM draft_orders WHERE id = $1 AND project_id = $2 AND status IN ('open', 'sent')
   ), released AS (
     DELETE FROM inventory_reservations WHERE draft_order_id = $1 AND EXISTS (SELECT 1 FROM completable)
   )
   SELECT ${selectList(ITEM_COLUMNS)} FROM draft_line_items
   WHERE draft_order_id = $1 AND EXISTS (SELECT 1 FROM completable) ORDER BY position`,
);

/**
 * A draft's completion's first two steps of a batch (src/db/round-trip.ts): the project's draft, its row locked for
 * the caller's transaction (no row when there is none); then, if it is open or sent, its line items by position,
 * in the statement that ends its reservations (every one, expired or not, as completion consumes them:
 * releaseReservations without a reason records no event).
 */
export const draftCompletionSteps = (projectId: string, id: string) =>
  [lockDraft.with([id, projectId]), itemsReleasing.with([id, projectId])] as const;
