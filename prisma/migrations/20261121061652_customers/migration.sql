-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateTable
CREATE TABLE "customers" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "email_normalized" TEXT NOT NULL,
    "first_name" TEXT NOT NULL,
    "last_name" TEXT NOT NULL,
    "sort_name" TEXT NOT NULL,
    "phone" TEXT,
    "company" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "tags" TEXT[],
    "metadata" JSONB NOT NULL,
    "active_price_key" TEXT,
    "locale" TEXT,
    "tax_number" TEXT,
    "tax_number_type" TEXT,
    "order_count" INTEGER NOT NULL DEFAULT 0,
    "total_spent" BIGINT NOT NULL DEFAULT 0,
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_addresses" (
    "id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "first_name" TEXT,
    "last_name" TEXT,
    "company" TEXT,
    "line1" TEXT NOT NULL,
    "line2" TEXT,
    "city" TEXT NOT NULL,
    "state" TEXT,
    "postal_code" TEXT,
    "country" TEXT NOT NULL,
    "phone" TEXT,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customer_addresses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_notes" (
    "id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "author_type" TEXT NOT NULL,
    "author_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customer_notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "customers_deleted_at_idx" ON "customers"("deleted_at");

-- CreateIndex
CREATE INDEX "customers_first_name_trgm_idx" ON "customers" USING GIN ("first_name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "customers_last_name_trgm_idx" ON "customers" USING GIN ("last_name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "customers_email_trgm_idx" ON "customers" USING GIN ("email" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "customer_addresses_customer_id_created_at_idx" ON "customer_addresses"("customer_id", "created_at");

-- CreateIndex
CREATE INDEX "customer_notes_customer_id_created_at_id_idx" ON "customer_notes"("customer_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_addresses" ADD CONSTRAINT "customer_addresses_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_notes" ADD CONSTRAINT "customer_notes_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Manual (Prisma cannot express partial indexes). Every customer query reads customers that are not
-- deleted, so these indexes hold only those: a soft delete frees the email, and counts stay index-only.
CREATE UNIQUE INDEX "customers_project_email_live_key" ON "customers"("project_id", "email_normalized") WHERE "deleted_at" IS NULL;
CREATE INDEX "customers_live_created_idx" ON "customers"("project_id", "created_at", "id") WHERE "deleted_at" IS NULL;
CREATE INDEX "customers_live_updated_idx" ON "customers"("project_id", "updated_at", "id") WHERE "deleted_at" IS NULL;
CREATE INDEX "customers_live_name_idx" ON "customers"("project_id", "sort_name", "id") WHERE "deleted_at" IS NULL;
CREATE INDEX "customers_live_status_idx" ON "customers"("project_id", "status", "created_at", "id") WHERE "deleted_at" IS NULL;
CREATE INDEX "customers_live_order_count_idx" ON "customers"("project_id", "order_count") WHERE "deleted_at" IS NULL;
CREATE INDEX "customers_live_total_spent_idx" ON "customers"("project_id", "total_spent") WHERE "deleted_at" IS NULL;

-- At most one default address per customer; setting a new default unsets the old one in the same transaction.
CREATE UNIQUE INDEX "customer_addresses_one_default" ON "customer_addresses"("customer_id") WHERE "is_default";
