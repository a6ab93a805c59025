-- AlterTable
ALTER TABLE "draft_orders" ADD COLUMN     "discount_applications" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "discount_codes" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "manual_discount" BIGINT NOT NULL DEFAULT 0;

-- The discount typed by hand so far is the manual discount, shown as its application.
UPDATE "draft_orders" SET "manual_discount" = "discount",
  "discount_applications" = jsonb_build_array(jsonb_build_object(
    'source', 'manual', 'id', NULL, 'code', NULL, 'title', 'Manual discount', 'type', 'manual',
    'amount', "discount", 'lines', '[]'::jsonb, 'shipping_amount', 0))
WHERE "discount" > 0;
