-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "return_window_days" INTEGER NOT NULL DEFAULT 30;

-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "returns" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "returns" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'requested',
    "requested_by" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "note" TEXT,
    "line_items" JSONB NOT NULL,
    "message" TEXT,
    "location_id" TEXT,
    "refund_id" TEXT,
    "approved_at" TIMESTAMPTZ(3),
    "rejected_at" TIMESTAMPTZ(3),
    "received_at" TIMESTAMPTZ(3),
    "closed_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "returns_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "returns_order_id_created_at_id_idx" ON "returns"("order_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "returns" ADD CONSTRAINT "returns_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: every order line item gets its stable id (`oli_` and 26 characters of [0-9a-f], unique through the
-- order's id and the line's position), and the fulfilment and refund lines name it next to line_item_index.
UPDATE "orders" o SET "line_items" = (
  SELECT COALESCE(jsonb_agg(
    CASE WHEN item ? 'id' THEN item
         ELSE item || jsonb_build_object('id', 'oli_' || substr(md5(o.id || ':' || (position - 1)::text) || md5(o.id), 1, 26))
    END ORDER BY position), '[]'::jsonb)
  FROM jsonb_array_elements(o."line_items") WITH ORDINALITY AS line(item, position)
) WHERE jsonb_typeof(o."line_items") = 'array' AND jsonb_array_length(o."line_items") > 0;

UPDATE "fulfillments" f SET "line_items" = (
  SELECT COALESCE(jsonb_agg(
    line || jsonb_build_object('line_item_id', o."line_items" -> (line ->> 'line_item_index')::int ->> 'id')
    ORDER BY position), '[]'::jsonb)
  FROM jsonb_array_elements(f."line_items") WITH ORDINALITY AS lines(line, position)
) FROM "orders" o WHERE o.id = f.order_id AND jsonb_array_length(f."line_items") > 0;

UPDATE "refunds" r SET "line_items" = (
  SELECT COALESCE(jsonb_agg(
    line || jsonb_build_object('line_item_id', o."line_items" -> (line ->> 'line_item_index')::int ->> 'id')
    ORDER BY position), '[]'::jsonb)
  FROM jsonb_array_elements(r."line_items") WITH ORDINALITY AS lines(line, position)
) FROM "orders" o WHERE o.id = r.order_id AND jsonb_array_length(r."line_items") > 0;
