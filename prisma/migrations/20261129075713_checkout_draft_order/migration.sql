-- AlterTable
ALTER TABLE "checkouts" ADD COLUMN     "draft_order_id" TEXT;
