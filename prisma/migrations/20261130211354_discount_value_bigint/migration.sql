-- AlterTable
ALTER TABLE "discounts" ALTER COLUMN "value" SET DATA TYPE BIGINT;
