-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "discount_applications" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "checkouts" ADD COLUMN     "discount_applications" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "discount_codes" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "discounts" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "code" TEXT,
    "code_key" TEXT,
    "title" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "type" TEXT NOT NULL,
    "value" INTEGER NOT NULL DEFAULT 0,
    "target" TEXT NOT NULL DEFAULT 'order',
    "conditions" JSONB NOT NULL,
    "buy_x_get_y" JSONB,
    "tiers" JSONB NOT NULL DEFAULT '[]',
    "combinable" BOOLEAN NOT NULL DEFAULT false,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "starts_at" TIMESTAMPTZ(3),
    "ends_at" TIMESTAMPTZ(3),
    "usage_limit" INTEGER,
    "usage_limit_per_customer" INTEGER,
    "times_used" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "discounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "discount_redemptions" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "discount_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "customer_key" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "released_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "discount_redemptions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "discounts_project_id_kind_created_at_id_idx" ON "discounts"("project_id", "kind", "created_at", "id");

-- CreateIndex
CREATE INDEX "discounts_project_id_kind_updated_at_id_idx" ON "discounts"("project_id", "kind", "updated_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "discounts_project_id_code_key_key" ON "discounts"("project_id", "code_key");

-- CreateIndex
CREATE INDEX "discount_redemptions_discount_id_customer_key_idx" ON "discount_redemptions"("discount_id", "customer_key");

-- CreateIndex
CREATE INDEX "discount_redemptions_order_id_idx" ON "discount_redemptions"("order_id");

-- CreateIndex
CREATE UNIQUE INDEX "discount_redemptions_discount_id_order_id_key" ON "discount_redemptions"("discount_id", "order_id");

-- AddForeignKey
ALTER TABLE "discounts" ADD CONSTRAINT "discounts_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "discount_redemptions" ADD CONSTRAINT "discount_redemptions_discount_id_fkey" FOREIGN KEY ("discount_id") REFERENCES "discounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
