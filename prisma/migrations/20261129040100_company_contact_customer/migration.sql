-- AlterTable
ALTER TABLE "company_contacts" ADD COLUMN     "customer_id" TEXT;

-- CreateIndex
CREATE INDEX "company_contacts_customer_id_idx" ON "company_contacts"("customer_id");

-- AddForeignKey
ALTER TABLE "company_contacts" ADD CONSTRAINT "company_contacts_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE SET NULL ON UPDATE CASCADE;
