-- CreateTable
CREATE TABLE "shipping_zones" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "countries" TEXT[],
    "is_rest_of_world" BOOLEAN NOT NULL DEFAULT false,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "carrier_callback_url" TEXT,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shipping_zones_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shipping_rates" (
    "id" TEXT NOT NULL,
    "zone_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "price" BIGINT NOT NULL DEFAULT 0,
    "currency" TEXT NOT NULL,
    "min_order_subtotal" BIGINT,
    "max_order_subtotal" BIGINT,
    "min_order_weight" INTEGER,
    "max_order_weight" INTEGER,
    "min_delivery_days" INTEGER,
    "max_delivery_days" INTEGER,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shipping_rates_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "shipping_zones_project_id_position_id_idx" ON "shipping_zones"("project_id", "position", "id");

-- CreateIndex
CREATE INDEX "shipping_zones_project_id_created_at_id_idx" ON "shipping_zones"("project_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "shipping_rates_zone_id_position_id_idx" ON "shipping_rates"("zone_id", "position", "id");

-- CreateIndex
CREATE INDEX "shipping_rates_project_id_idx" ON "shipping_rates"("project_id");

-- AddForeignKey
ALTER TABLE "shipping_zones" ADD CONSTRAINT "shipping_zones_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "shipping_rates" ADD CONSTRAINT "shipping_rates_zone_id_fkey" FOREIGN KEY ("zone_id") REFERENCES "shipping_zones"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "shipping_rates" ADD CONSTRAINT "shipping_rates_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One rest-of-world zone per project, also under concurrent creates and updates (a partial index, which
-- schema.prisma cannot express).
CREATE UNIQUE INDEX "shipping_zones_one_rest_of_world" ON "shipping_zones"("project_id") WHERE "is_rest_of_world";
