-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "first_order_at" TIMESTAMPTZ(3),
ADD COLUMN     "last_order_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "variants" ADD COLUMN     "inventory_policy" TEXT NOT NULL DEFAULT 'deny';

-- CreateTable
CREATE TABLE "project_counters" (
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "value" INTEGER NOT NULL,

    CONSTRAINT "project_counters_pkey" PRIMARY KEY ("project_id","name")
);

-- CreateTable
CREATE TABLE "draft_orders" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "draft_number" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "customer_id" TEXT,
    "customer_email" TEXT,
    "subtotal" BIGINT NOT NULL DEFAULT 0,
    "tax" BIGINT NOT NULL DEFAULT 0,
    "tax_data" JSONB,
    "tax_inclusive" BOOLEAN NOT NULL DEFAULT false,
    "shipping_cost" BIGINT NOT NULL DEFAULT 0,
    "discount" BIGINT NOT NULL DEFAULT 0,
    "total" BIGINT NOT NULL DEFAULT 0,
    "currency" TEXT NOT NULL,
    "shipping_address" JSONB,
    "billing_address" JSONB,
    "payment_terms" TEXT NOT NULL DEFAULT 'due_on_receipt',
    "payment_due_date" DATE,
    "order_id" TEXT,
    "completed_at" TIMESTAMPTZ(3),
    "item_count" INTEGER NOT NULL DEFAULT 0,
    "notes" TEXT,
    "metadata" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "draft_orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "draft_line_items" (
    "id" TEXT NOT NULL,
    "draft_order_id" TEXT NOT NULL,
    "product_id" TEXT,
    "variant_id" TEXT,
    "title" TEXT NOT NULL,
    "variant_title" TEXT NOT NULL,
    "sku" TEXT,
    "quantity" INTEGER NOT NULL,
    "unit_price" BIGINT NOT NULL,
    "is_custom" BOOLEAN NOT NULL,
    "note" TEXT,
    "position" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "draft_line_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "order_number" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "financial_status" TEXT NOT NULL DEFAULT 'pending',
    "customer_id" TEXT,
    "email" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "line_items" JSONB NOT NULL,
    "subtotal" BIGINT NOT NULL,
    "tax" BIGINT NOT NULL,
    "tax_data" JSONB,
    "shipping_cost" BIGINT NOT NULL,
    "discount" BIGINT NOT NULL,
    "total" BIGINT NOT NULL,
    "shipping_address" JSONB,
    "billing_address" JSONB,
    "payment_terms" TEXT NOT NULL,
    "payment_due_date" DATE,
    "draft_order_id" TEXT,
    "paid_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "draft_orders_order_id_key" ON "draft_orders"("order_id");

-- CreateIndex
CREATE INDEX "draft_orders_project_id_created_at_id_idx" ON "draft_orders"("project_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "draft_orders_project_id_updated_at_id_idx" ON "draft_orders"("project_id", "updated_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "draft_orders_project_id_draft_number_key" ON "draft_orders"("project_id", "draft_number");

-- CreateIndex
CREATE UNIQUE INDEX "draft_line_items_draft_order_id_position_key" ON "draft_line_items"("draft_order_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "orders_draft_order_id_key" ON "orders"("draft_order_id");

-- CreateIndex
CREATE INDEX "orders_project_id_created_at_id_idx" ON "orders"("project_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "orders_project_id_updated_at_id_idx" ON "orders"("project_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "orders_customer_id_idx" ON "orders"("customer_id");

-- CreateIndex
CREATE UNIQUE INDEX "orders_project_id_order_number_key" ON "orders"("project_id", "order_number");

-- AddForeignKey
ALTER TABLE "project_counters" ADD CONSTRAINT "project_counters_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "draft_orders" ADD CONSTRAINT "draft_orders_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "draft_line_items" ADD CONSTRAINT "draft_line_items_draft_order_id_fkey" FOREIGN KEY ("draft_order_id") REFERENCES "draft_orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
