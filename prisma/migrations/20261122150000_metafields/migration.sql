-- CreateTable
CREATE TABLE "metafield_definitions" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "description" TEXT,
    "owner_type" TEXT NOT NULL,
    "value_type" TEXT NOT NULL,
    "choices" TEXT[],
    "position" INTEGER NOT NULL,
    "required" BOOLEAN NOT NULL DEFAULT false,
    "storefront_visible" BOOLEAN NOT NULL DEFAULT true,
    "archived_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "metafield_definitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "metafield_values" (
    "owner_id" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "definition_id" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "metafield_values_pkey" PRIMARY KEY ("owner_id","mode","definition_id")
);

-- CreateIndex
CREATE INDEX "metafield_definitions_project_id_owner_type_position_idx" ON "metafield_definitions"("project_id", "owner_type", "position");

-- CreateIndex
CREATE UNIQUE INDEX "metafield_definitions_project_id_key_key" ON "metafield_definitions"("project_id", "key");

-- CreateIndex
CREATE INDEX "metafield_values_definition_id_idx" ON "metafield_values"("definition_id");

-- AddForeignKey
ALTER TABLE "metafield_definitions" ADD CONSTRAINT "metafield_definitions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metafield_values" ADD CONSTRAINT "metafield_values_definition_id_fkey" FOREIGN KEY ("definition_id") REFERENCES "metafield_definitions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Manual (Prisma cannot express partial indexes).
-- A slug is unique per owner type among active definitions: archiving a definition frees its slug.
CREATE UNIQUE INDEX "metafield_definitions_active_slug_key" ON "metafield_definitions"("project_id", "owner_type", "slug") WHERE "archived_at" IS NULL;
