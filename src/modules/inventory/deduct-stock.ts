import type { Tx } from '../../db/client.js';
import type { InventoryLevel, Variant } from '../../generated/prisma/client.js';
import type { Ctx } from '../../shared/context.js';
import { conflict } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { preparedStatement, selectList, type Queryable } from '../../db/prepared.js';
import { GENERIC_PLANS, type RowsOf, type Step } from '../../db/round-trip.js';
import { VARIANT_COLUMNS } from '../catalog/index.js';
import { insertEventsSteps, storeEventRow } from '../store-events/index.js';
import { lowStockEvent, recordLowStock } from './inventory.service.js';
import { levelKey, lockedStock } from './reserved-units.js';
import { updatedAtAfterStockMove } from './stock-visibility.js';
import { byDeductionOrder, perVariant, type LevelAt, type StockAllocation, type StockDemand } from './stock-order.js';

export type { StockAllocation, StockDemand } from './stock-order.js';

// One statement for every unit a deduction takes ($1-$5: per take its variant, location, units, the level's units
// after it and the adjustment's id; $6 the project, $7 the time, $8 the deducted variants): the levels (summed per
// level, created at -units where there was none), one `order` adjustment per take, and the variants' totals, set
// from their levels as they were when the statement began (the variants are locked, so no other write changed
// them since) less what it takes. Answers the variants whose total changed, as they are now.
const TAKE_UNITS = `
  WITH taken AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[])
      AS t (variant_id, location_id, take, available_after, adjustment_id)
  ), per_level AS (
    SELECT variant_id, location_id, sum(take)::int AS take FROM taken GROUP BY variant_id, location_id
  ), levels AS (
    INSERT INTO inventory_levels (variant_id, location_id, project_id, available, updated_at)
    SELECT variant_id, location_id, $6, -take, $7::timestamptz FROM per_level
    ON CONFLICT (variant_id, location_id)
    DO UPDATE SET available = inventory_levels.available + EXCLUDED.available, updated_at = EXCLUDED.updated_at
  ), adjustments AS (
    INSERT INTO inventory_adjustments (id, project_id, variant_id, location_id, reason, delta, available_after, created_at)
    SELECT adjustment_id, $6, variant_id, location_id, 'order', -take, available_after, $7::timestamptz FROM taken
  ), totals AS (
    SELECT deducted.id,
      COALESCE((SELECT sum(available) FROM inventory_levels WHERE variant_id = deducted.id), 0)
        - COALESCE((SELECT sum(take) FROM per_level WHERE variant_id = deducted.id), 0) AS total
    FROM unnest($8::text[]) AS deducted (id)
  )
  UPDATE variants SET inventory_quantity = totals.total,
    -- Only a change of in_stock moves updated_at (stock-visibility.ts: storefronts see in_stock, not the quantity).
    updated_at = CASE WHEN variants.inventory_policy <> 'continue' AND (variants.inventory_quantity > 0) <> (totals.total > 0)
                      THEN $7::timestamptz ELSE variants.updated_at END
  FROM totals WHERE variants.id = totals.id AND variants.inventory_quantity <> totals.total
  RETURNING ${selectList(VARIANT_COLUMNS, 'variants')}`;

/** A take of `units` from a level that held `available` units before it. */
interface Take {
  variantId: string;
  locationId: string;
  available: number;
  units: number;
}

/** The values of TAKE_UNITS for `takes` of the locked `variants` in `projectId`. */
const takeValues = (takes: Take[], variants: Map<string, Variant>, projectId: string, at: Date) => [
  takes.map((take) => take.variantId),
  takes.map((take) => take.locationId),
  takes.map((take) => take.units),
  takes.map((take) => take.available - take.units),
  takes.map(() => newId('iadj_')),
  projectId,
  at,
  [...variants.keys()],
];

/**
 * Writes the takes in one statement (levels, ledger, variant totals) and records inventory.low for every variant
 * whose total dropped below its threshold (recordLowStock).
 */
async function takeUnits(tx: Tx, ctx: Ctx, takes: Take[], variants: Map<string, Variant>): Promise<void> {
  const changed = await tx.$queryRawUnsafe<Variant[]>(
    TAKE_UNITS,
    ...takeValues(takes, variants, ctx.project.id, new Date()),
  );
  for (const after of changed.sort((a, b) => a.id.localeCompare(b.id)))
    await recordLowStock(tx, ctx, variants.get(after.id)!, after);
}

/** The stock a deduction decides from: the locked live variants by id, their levels at active locations, each level's free units. */
interface LockedStock {
  variants: Map<string, Variant>;
  levels: LevelAt[];
  free: Map<string, number>;
}

/**
 * What a deduction takes from where, decided on locked stock (nothing written): 409 when a variant is gone or a
 * `deny` variant is short; units from the active locations, the default first, then by name, never from units
 * other drafts hold; a `continue` variant's shortfall from the default location (`defaultLocation`, asked only
 * then).
 */
async function planDeduction(
  wanted: StockDemand[],
  { variants, levels, free: freeAt }: LockedStock,
  defaultLocation: () => Promise<{ id: string } | null>,
): Promise<{ allocations: StockAllocation[]; takes: Take[] }> {
  const free = (level: LevelAt) => freeAt.get(levelKey(level.variantId, level.locationId))!;
  for (const demand of wanted) {
    const variant = variants.get(demand.variantId);
    if (!variant)
      throw conflict(
        `${demand.label} (${demand.variantId}) is no longer in the catalog. Remove its line item first.`,
        demand.variantId,
      );
    const held = levels
      .filter((level) => level.variantId === demand.variantId)
      .reduce((sum, level) => sum + free(level), 0);
    if (variant.inventoryPolicy === 'deny' && held < demand.quantity) {
      throw conflict(
        `Not enough stock of ${demand.label} (${demand.variantId}): ${held} available at active locations, ${demand.quantity} ordered.`,
        demand.variantId,
      );
    }
  }

  const allocations: StockAllocation[] = [];
  const takes: Take[] = [];
  const takeFrom = (variantId: string, locationId: string, available: number, units: number) => {
    takes.push({ variantId, locationId, available, units });
    return { variant_id: variantId, location_id: locationId, quantity: units };
  };
  for (const demand of wanted) {
    let remaining = demand.quantity;
    for (const level of levels.filter((l) => l.variantId === demand.variantId).sort(byDeductionOrder)) {
      const take = Math.min(free(level), remaining);
      if (take === 0) continue;
      allocations.push(takeFrom(demand.variantId, level.locationId, level.available, take));
      level.available -= take;
      remaining -= take;
    }
    // Only `continue` variants get here: sold beyond stock, the default location carries the shortfall.
    const shortfallAt = remaining > 0 ? await defaultLocation() : null;
    if (shortfallAt) {
      const level = levels.find((l) => l.variantId === demand.variantId && l.locationId === shortfallAt.id);
      allocations.push(takeFrom(demand.variantId, shortfallAt.id, level?.available ?? 0, remaining));
    }
  }
  return { allocations, takes };
}

/**
 * Takes the demanded units out of stock in the caller's transaction: the variants are locked (id order),
 * every demand is checked before anything changes, then units come from the active locations, the
 * default first, then by name, never from units other drafts hold (live reservations). A variant with
 * policy `deny` whose active locations hold fewer available units than demanded is 409 conflict with the
 * variant id in `field` (nothing changes); with `continue` the rest is taken from the default location,
 * which goes negative. Adjustments (reason `order`), variant totals and
 * inventory.low events are written as for any stock change. Answers where the units came from.
 */
export async function deductStock(tx: Tx, ctx: Ctx, demands: StockDemand[]): Promise<StockAllocation[]> {
  const wanted = perVariant(demands);
  if (wanted.length === 0) return [];
  // Units held for sent drafts are not sellable here (a draft's own reservation is released before its completion).
  const stock = await lockedStock(
    tx,
    ctx,
    wanted.map((demand) => demand.variantId),
  );
  // Read only when a `continue` variant is short (rare): one round trip less on every other deduction.
  const { allocations, takes } = await planDeduction(wanted, stock, () =>
    tx.location.findFirst({ where: { projectId: ctx.project.id, isDefault: true, deletedAt: null } }),
  );
  await takeUnits(tx, ctx, takes, deductedOf(wanted, stock));
  return allocations;
}

const deductedOf = (wanted: StockDemand[], stock: LockedStock) =>
  new Map(wanted.map((demand) => [demand.variantId, stock.variants.get(demand.variantId)!]));

// The variants of a draft's line items and their levels, for its completion (draftStockSteps): $1 the draft, $2 its
// project; nothing when the draft is not the project's or cannot be completed (it is then answered 404 or 400).
const DRAFT_VARIANTS = `SELECT variant_id FROM draft_line_items WHERE draft_order_id = $1 AND variant_id IS NOT NULL
  AND EXISTS (SELECT 1 FROM draft_orders WHERE id = $1 AND project_id = $2 AND status IN ('open', 'sent'))`;

const lockDraftVariants = preparedStatement<Variant>(
  'deduct_lock_draft_variants',
  `SELECT ${selectList(VARIANT_COLUMNS, 'variants')} FROM variants JOIN products ON products.id = variants.product_id
   WHERE variants.id IN (${DRAFT_VARIANTS}) AND variants.project_id = $2 AND products.deleted_at IS NULL
   ORDER BY variants.id FOR UPDATE OF variants`,
);

// A statement of its own after the variants' lock is held, so it sees every write committed before it.
const draftLevels = preparedStatement<InventoryLevel & { name: string; isDefault: boolean; reserved: number }>(
  'deduct_draft_levels',
  `SELECT levels.variant_id AS "variantId", levels.location_id AS "locationId", levels.project_id AS "projectId",
     levels.available, levels.updated_at AS "updatedAt", locations.name, locations.is_default AS "isDefault",
     COALESCE((SELECT sum(quantity) FROM inventory_reservations held WHERE held.variant_id = levels.variant_id
       AND held.location_id = levels.location_id AND held.expires_at > now()), 0)::int AS reserved
   FROM inventory_levels levels JOIN locations ON locations.id = levels.location_id
   WHERE levels.variant_id IN (${DRAFT_VARIANTS}) AND locations.is_active AND locations.deleted_at IS NULL`,
);

// The units each variant holds over all its levels (active locations or not): what TAKE_UNITS sets its total from.
const draftLevelTotals = preparedStatement<{ variantId: string; units: number }>(
  'deduct_draft_level_totals',
  `SELECT variant_id AS "variantId", sum(available)::int AS units FROM inventory_levels
   WHERE variant_id IN (${DRAFT_VARIANTS}) GROUP BY variant_id`,
);

/**
 * The live variants of the draft's items locked (id order), then their levels at active locations with their live
 * reserved units, and their units over all levels: three steps of a batch (src/db/round-trip.ts), after the draft's
 * lock and its reservations' release.
 */
export const draftStockSteps = (draftId: string, projectId: string) =>
  [
    lockDraftVariants.with([draftId, projectId]),
    draftLevels.with([draftId, projectId]),
    draftLevelTotals.with([draftId, projectId]),
  ] as const;

/** The rows draftStockSteps read. */
export type DraftStock = RowsOf<ReturnType<typeof draftStockSteps>>;

const defaultLocationOf = preparedStatement<{ id: string }>(
  'deduct_default_location',
  'SELECT id FROM locations WHERE project_id = $1 AND is_default AND deleted_at IS NULL LIMIT 1',
);

const takeUnitsStatement = preparedStatement<Variant>('deduct_take_units', TAKE_UNITS);

/**
 * deductStock on a connection in its own transaction (src/db/client-transaction.ts), as prepared statements, for a
 * project where no subscriber listens to inventory.low (its events are plain inserts), from the stock draftStockSteps
 * locked and read: the same checks, and as steps for the transaction's last batch the same takes, ledger, totals and
 * inventory.low events. The variants' totals after the takes are known before they run (each is its units over all
 * levels less what is taken, as TAKE_UNITS sets it: the variants are locked, so nothing else changes their levels),
 * so the events need no round trip of their own. Resolves to where the units come from and the steps.
 */
export async function deductionOn(
  client: Queryable,
  ctx: Ctx,
  demands: StockDemand[],
  [lockedVariants, rows, totals]: DraftStock,
  at: Date,
): Promise<{ allocations: StockAllocation[]; steps: Step<unknown>[] }> {
  const wanted = perVariant(demands);
  if (wanted.length === 0) return { allocations: [], steps: [] };
  const variants = new Map(lockedVariants.map((v) => [v.id, v]));
  const levels: LevelAt[] = rows.map(({ name, isDefault, reserved, ...level }) => ({
    ...level,
    location: { id: level.locationId, name, isDefault },
  }));
  const free = new Map(
    rows.map((row) => [levelKey(row.variantId, row.locationId), Math.max(row.available - row.reserved, 0)]),
  );
  const stock = { variants, levels, free };
  const { allocations, takes } = await planDeduction(wanted, stock, async () => {
    const [location] = await defaultLocationOf(client, [ctx.project.id]);
    return location ?? null;
  });
  const deducted = deductedOf(wanted, stock);
  const units = new Map(totals.map((total) => [total.variantId, total.units]));
  const low = [...deducted.values()]
    .sort((a, b) => a.id.localeCompare(b.id))
    .flatMap((before) => {
      const taken = takes.filter((take) => take.variantId === before.id).reduce((sum, take) => sum + take.units, 0);
      const total = (units.get(before.id) ?? 0) - taken;
      if (total === before.inventoryQuantity) return [];
      const after = { ...before, inventoryQuantity: total, updatedAt: updatedAtAfterStockMove(before, total, at) };
      const event = lowStockEvent(before, after);
      return event ? [storeEventRow(ctx, event)] : [];
    });
  return {
    allocations,
    // TAKE_UNITS's custom plans cost 0.47 ms each, as much as running it (pg_stat_statements, track_planning).
    steps: [
      GENERIC_PLANS,
      takeUnitsStatement.with(takeValues(takes, deducted, ctx.project.id, at)),
      ...insertEventsSteps(low, at),
    ],
  };
}
