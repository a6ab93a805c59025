-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "total_refunded" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "refunds" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "reason" TEXT,
    "line_items" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "refunds_order_id_created_at_id_idx" ON "refunds"("order_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;
