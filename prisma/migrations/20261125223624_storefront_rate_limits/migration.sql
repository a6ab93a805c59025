-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "auth_attempts_per_email_per_minute" INTEGER NOT NULL DEFAULT 20,
ADD COLUMN     "auth_attempts_per_ip_per_minute" INTEGER NOT NULL DEFAULT 120,
ADD COLUMN     "storefront_rate_limit_per_minute" INTEGER;
