-- AlterTable
ALTER TABLE "search_queries" ADD COLUMN     "search_count" INTEGER NOT NULL DEFAULT 1;
