-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "reservation_minutes" INTEGER NOT NULL DEFAULT 1440;

-- CreateTable
CREATE TABLE "inventory_reservations" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "draft_order_id" TEXT NOT NULL,
    "variant_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inventory_reservations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "inventory_reservations_draft_order_id_idx" ON "inventory_reservations"("draft_order_id");

-- CreateIndex
CREATE INDEX "inventory_reservations_variant_id_location_id_expires_at_idx" ON "inventory_reservations"("variant_id", "location_id", "expires_at");

-- AddForeignKey
ALTER TABLE "inventory_reservations" ADD CONSTRAINT "inventory_reservations_draft_order_id_fkey" FOREIGN KEY ("draft_order_id") REFERENCES "draft_orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;
