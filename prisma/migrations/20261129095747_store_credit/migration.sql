-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "store_credit_amount" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "checkouts" ADD COLUMN     "store_credit_amount" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "store_credit_entry_id" TEXT;

-- CreateTable
CREATE TABLE "store_credit_accounts" (
    "customer_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "balance" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "store_credit_accounts_pkey" PRIMARY KEY ("customer_id")
);

-- CreateTable
CREATE TABLE "store_credit_transactions" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "balance_after" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "reason" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "remaining" BIGINT NOT NULL DEFAULT 0,
    "taken" JSONB,
    "order_id" TEXT,
    "checkout_id" TEXT,
    "refund_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "store_credit_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "store_credit_accounts_project_id_idx" ON "store_credit_accounts"("project_id");

-- CreateIndex
CREATE INDEX "store_credit_transactions_customer_id_created_at_id_idx" ON "store_credit_transactions"("customer_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "store_credit_transactions_checkout_id_idx" ON "store_credit_transactions"("checkout_id");

-- CreateIndex
CREATE INDEX "store_credit_transactions_order_id_idx" ON "store_credit_transactions"("order_id");

-- CreateIndex
CREATE INDEX "store_credit_transactions_expires_at_idx" ON "store_credit_transactions"("expires_at");

-- AddForeignKey
ALTER TABLE "store_credit_accounts" ADD CONSTRAINT "store_credit_accounts_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "store_credit_transactions" ADD CONSTRAINT "store_credit_transactions_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
