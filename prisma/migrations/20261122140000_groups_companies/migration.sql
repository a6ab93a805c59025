-- Manual (Prisma cannot express generated columns): the tags lowercased, kept by PostgreSQL whoever
-- writes the customer, so tag conditions of automatic customer groups compare case-insensitively and use
-- an index. lower() is immutable; the array round trip through text is not, hence the SQL function.
CREATE FUNCTION "lowercase_tags"(tags TEXT[]) RETURNS TEXT[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN coalesce((SELECT array_agg(lower(tag) ORDER BY n) FROM unnest(tags) WITH ORDINALITY AS t(tag, n)), '{}');

-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "tags_normalized" TEXT[] GENERATED ALWAYS AS ("lowercase_tags"("tags")) STORED;

-- CreateTable
CREATE TABLE "customer_groups" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "sort_name" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "description" TEXT,
    "type" TEXT NOT NULL DEFAULT 'manual',
    "conditions" JSONB NOT NULL,
    "condition_match" TEXT NOT NULL DEFAULT 'all',
    "active_price_key" TEXT,
    "metadata" JSONB NOT NULL,
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customer_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_group_members" (
    "group_id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_group_members_pkey" PRIMARY KEY ("group_id","customer_id")
);

-- CreateTable
CREATE TABLE "companies" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'supplier',
    "name" TEXT NOT NULL,
    "sort_name" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "email" TEXT,
    "phone" TEXT,
    "website" TEXT,
    "tax_number" TEXT,
    "tax_number_type" TEXT,
    "currency" TEXT,
    "payment_terms" TEXT,
    "note" TEXT,
    "external_id" TEXT,
    "metadata" JSONB NOT NULL,
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "companies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "company_addresses" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "label" TEXT,
    "first_name" TEXT,
    "last_name" TEXT,
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

    CONSTRAINT "company_addresses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "company_contacts" (
    "id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "phone" TEXT,
    "role" TEXT,
    "is_primary" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "company_contacts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "customer_groups_project_id_created_at_id_idx" ON "customer_groups"("project_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "customer_groups_project_id_updated_at_id_idx" ON "customer_groups"("project_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "customer_groups_project_id_sort_name_id_idx" ON "customer_groups"("project_id", "sort_name", "id");

-- CreateIndex
CREATE INDEX "customer_addresses_city_trgm_idx" ON "customer_addresses" USING GIN ("city" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "customer_addresses_country_customer_id_idx" ON "customer_addresses"("country", "customer_id");

-- CreateIndex
CREATE INDEX "customer_group_members_customer_id_idx" ON "customer_group_members"("customer_id");

-- CreateIndex
CREATE INDEX "customer_group_members_group_id_created_at_idx" ON "customer_group_members"("group_id", "created_at");

-- CreateIndex
CREATE INDEX "companies_project_id_created_at_id_idx" ON "companies"("project_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "companies_project_id_updated_at_id_idx" ON "companies"("project_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "companies_project_id_sort_name_id_idx" ON "companies"("project_id", "sort_name", "id");

-- CreateIndex
CREATE INDEX "company_addresses_company_id_created_at_idx" ON "company_addresses"("company_id", "created_at");

-- CreateIndex
CREATE INDEX "company_contacts_company_id_created_at_idx" ON "company_contacts"("company_id", "created_at");

-- AddForeignKey
ALTER TABLE "customer_groups" ADD CONSTRAINT "customer_groups_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_group_members" ADD CONSTRAINT "customer_group_members_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "customer_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_group_members" ADD CONSTRAINT "customer_group_members_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "companies" ADD CONSTRAINT "companies_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "company_addresses" ADD CONSTRAINT "company_addresses_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "company_contacts" ADD CONSTRAINT "company_contacts_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Manual (Prisma cannot express partial indexes).
-- Handles are unique among rows that are not deleted: a soft delete frees the handle.
CREATE UNIQUE INDEX "customer_groups_project_handle_live_key" ON "customer_groups"("project_id", "handle") WHERE "deleted_at" IS NULL;
CREATE UNIQUE INDEX "companies_project_handle_live_key" ON "companies"("project_id", "handle") WHERE "deleted_at" IS NULL;

-- At most one default address and one primary contact per company; writers also lock the company row,
-- so a new default replaces the old one instead of failing.
CREATE UNIQUE INDEX "company_addresses_one_default" ON "company_addresses"("company_id") WHERE "is_default";
CREATE UNIQUE INDEX "company_contacts_one_primary" ON "company_contacts"("company_id") WHERE "is_primary";

-- What the conditions of automatic groups read (order figures, status and created_at already have
-- indexes; city and country of addresses are in schema.prisma): tags, company and the order dates of live customers.
CREATE INDEX "customers_live_tags_idx" ON "customers" USING GIN ("tags_normalized") WHERE "deleted_at" IS NULL;
CREATE INDEX "customers_live_company_trgm_idx" ON "customers" USING GIN ("company" gin_trgm_ops) WHERE "deleted_at" IS NULL;
CREATE INDEX "customers_live_first_order_idx" ON "customers"("project_id", "first_order_at") WHERE "deleted_at" IS NULL;
CREATE INDEX "customers_live_last_order_idx" ON "customers"("project_id", "last_order_at") WHERE "deleted_at" IS NULL;
