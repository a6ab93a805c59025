-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "cancel_reason" TEXT,
ADD COLUMN     "cancelled_at" TIMESTAMPTZ(3),
ADD COLUMN     "fulfillment_status" TEXT NOT NULL DEFAULT 'unfulfilled',
ADD COLUMN     "stock_allocations" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "fulfillments" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'success',
    "line_items" JSONB NOT NULL,
    "tracking_company" TEXT,
    "tracking_number" TEXT,
    "tracking_url" TEXT,
    "notify_customer" BOOLEAN NOT NULL,
    "cancelled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "fulfillments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "fulfillments_order_id_created_at_id_idx" ON "fulfillments"("order_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "fulfillments" ADD CONSTRAINT "fulfillments_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;
