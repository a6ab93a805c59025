-- AlterTable
ALTER TABLE "search_queries" ADD COLUMN     "client_hash" TEXT;

-- AlterTable
ALTER TABLE "search_query_stats" ADD COLUMN     "client_count" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "search_query_clients" (
    "project_id" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "client_hash" TEXT NOT NULL,
    "last_searched_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "search_query_clients_pkey" PRIMARY KEY ("project_id","query","client_hash")
);

-- CreateTable
CREATE TABLE "search_suggestion_blocks" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_suggestion_blocks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "search_query_clients_last_searched_at_idx" ON "search_query_clients"("last_searched_at");

-- CreateIndex
CREATE INDEX "search_suggestion_blocks_project_id_created_at_id_idx" ON "search_suggestion_blocks"("project_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "search_suggestion_blocks_project_id_query_key" ON "search_suggestion_blocks"("project_id", "query");

-- CreateIndex
CREATE INDEX "search_queries_created_at_idx" ON "search_queries"("created_at");

-- CreateIndex
CREATE INDEX "search_query_stats_last_searched_at_idx" ON "search_query_stats"("last_searched_at");

-- AddForeignKey
ALTER TABLE "search_suggestion_blocks" ADD CONSTRAINT "search_suggestion_blocks_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Suggestions are cached per process and kept exact by the change feed: a new or removed block is seen at once.
CREATE TRIGGER search_suggestion_blocks_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_suggestion_blocks FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
