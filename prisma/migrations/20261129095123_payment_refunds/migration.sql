-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "failure_reason" TEXT,
ADD COLUMN     "provider" TEXT NOT NULL DEFAULT 'manual',
ADD COLUMN     "provider_reference" TEXT,
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'succeeded';

-- CreateTable
CREATE TABLE "unplaced_payments" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "checkout_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "refund_status" TEXT NOT NULL,
    "refund_reference" TEXT,
    "failure_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "unplaced_payments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "unplaced_payments_project_id_created_at_idx" ON "unplaced_payments"("project_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "unplaced_payments_provider_reference_key" ON "unplaced_payments"("provider", "reference");

-- CreateIndex
CREATE INDEX "refunds_project_id_provider_reference_idx" ON "refunds"("project_id", "provider_reference");

-- AddForeignKey
ALTER TABLE "unplaced_payments" ADD CONSTRAINT "unplaced_payments_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
