-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "stripe_secret_key" TEXT,
ADD COLUMN     "stripe_webhook_secret" TEXT;

-- AlterTable
ALTER TABLE "checkouts" ADD COLUMN     "payment_client_secret" TEXT;
