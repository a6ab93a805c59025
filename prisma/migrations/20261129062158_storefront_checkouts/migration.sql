-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "checkout_reservation_minutes" INTEGER NOT NULL DEFAULT 15,
ADD COLUMN     "payment_provider" TEXT NOT NULL DEFAULT 'manual',
ADD COLUMN     "checkouts_per_ip_per_minute" INTEGER NOT NULL DEFAULT 20;

-- AlterTable
ALTER TABLE "inventory_reservations" ADD COLUMN     "checkout_id" TEXT,
ALTER COLUMN "draft_order_id" DROP NOT NULL;

-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "checkout_id" TEXT,
ADD COLUMN     "payments" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "checkouts" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "customer_id" TEXT,
    "email" TEXT,
    "currency" TEXT NOT NULL,
    "shipping_address" JSONB,
    "billing_address" JSONB,
    "shipping_rate" JSONB,
    "note" TEXT,
    "subtotal" BIGINT NOT NULL DEFAULT 0,
    "tax" BIGINT NOT NULL DEFAULT 0,
    "tax_data" JSONB,
    "tax_inclusive" BOOLEAN NOT NULL DEFAULT false,
    "shipping_cost" BIGINT NOT NULL DEFAULT 0,
    "discount" BIGINT NOT NULL DEFAULT 0,
    "total" BIGINT NOT NULL DEFAULT 0,
    "line_count" INTEGER NOT NULL DEFAULT 0,
    "payment_provider" TEXT,
    "payment_status" TEXT,
    "payment_reference" TEXT,
    "reserved_until" TIMESTAMPTZ(3),
    "order_id" TEXT,
    "completed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "checkouts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checkout_lines" (
    "id" TEXT NOT NULL,
    "checkout_id" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "variant_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "variant_title" TEXT NOT NULL,
    "sku" TEXT,
    "quantity" INTEGER NOT NULL,
    "unit_price" BIGINT NOT NULL,
    "base_price" BIGINT NOT NULL,
    "price_list_id" TEXT,
    "position" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "checkouts_order_id_key" ON "checkouts"("order_id");

-- CreateIndex
CREATE INDEX "checkouts_project_id_expires_at_idx" ON "checkouts"("project_id", "expires_at");

-- CreateIndex
CREATE INDEX "checkouts_expires_at_idx" ON "checkouts"("expires_at");

-- CreateIndex
CREATE INDEX "checkout_lines_checkout_id_position_idx" ON "checkout_lines"("checkout_id", "position");

-- CreateIndex
CREATE INDEX "inventory_reservations_checkout_id_idx" ON "inventory_reservations"("checkout_id");

-- CreateIndex
CREATE UNIQUE INDEX "orders_checkout_id_key" ON "orders"("checkout_id");

-- AddForeignKey
ALTER TABLE "inventory_reservations" ADD CONSTRAINT "inventory_reservations_checkout_id_fkey" FOREIGN KEY ("checkout_id") REFERENCES "checkouts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkouts" ADD CONSTRAINT "checkouts_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_lines" ADD CONSTRAINT "checkout_lines_checkout_id_fkey" FOREIGN KEY ("checkout_id") REFERENCES "checkouts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

