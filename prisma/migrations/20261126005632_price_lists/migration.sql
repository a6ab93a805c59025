-- AlterTable
ALTER TABLE "draft_line_items" ADD COLUMN     "base_price" BIGINT,
ADD COLUMN     "price_list_id" TEXT;

-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "active_price_key" TEXT;

-- CreateTable
CREATE TABLE "price_lists" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "sort_name" TEXT NOT NULL,
    "description" TEXT,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "starts_at" TIMESTAMPTZ(3),
    "ends_at" TIMESTAMPTZ(3),
    "allows_increase" BOOLEAN NOT NULL DEFAULT false,
    "metadata" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "price_lists_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "price_list_prices" (
    "id" TEXT NOT NULL,
    "price_list_id" TEXT NOT NULL,
    "variant_id" TEXT NOT NULL,
    "min_quantity" INTEGER NOT NULL DEFAULT 1,
    "amount" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "price_list_prices_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "price_lists_project_id_created_at_id_idx" ON "price_lists"("project_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "price_lists_project_id_updated_at_id_idx" ON "price_lists"("project_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "price_lists_project_id_sort_name_id_idx" ON "price_lists"("project_id", "sort_name", "id");

-- CreateIndex
CREATE UNIQUE INDEX "price_lists_project_id_slug_key" ON "price_lists"("project_id", "slug");

-- CreateIndex
CREATE INDEX "price_list_prices_variant_id_idx" ON "price_list_prices"("variant_id");

-- CreateIndex
CREATE INDEX "price_list_prices_price_list_id_created_at_id_idx" ON "price_list_prices"("price_list_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "price_list_prices_price_list_id_variant_id_min_quantity_key" ON "price_list_prices"("price_list_id", "variant_id", "min_quantity");

-- AddForeignKey
ALTER TABLE "price_lists" ADD CONSTRAINT "price_lists_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "price_list_prices" ADD CONSTRAINT "price_list_prices_price_list_id_fkey" FOREIGN KEY ("price_list_id") REFERENCES "price_lists"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "price_list_prices" ADD CONSTRAINT "price_list_prices_variant_id_fkey" FOREIGN KEY ("variant_id") REFERENCES "variants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Variant items added before price lists were priced at the variant's own price.
UPDATE "draft_line_items" SET "base_price" = "unit_price" WHERE NOT "is_custom";

-- Caches of answers that read prices (storefront search) are kept exact by these (see the list_totals migration).
CREATE TRIGGER price_lists_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON price_lists FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER price_list_prices_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON price_list_prices FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
