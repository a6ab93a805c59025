-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "test" BOOLEAN NOT NULL DEFAULT false;
