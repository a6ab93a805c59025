-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "storefront_client_share_percent" INTEGER NOT NULL DEFAULT 10;
