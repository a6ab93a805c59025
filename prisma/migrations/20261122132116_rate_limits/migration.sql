-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "contact_email" TEXT;

-- CreateTable
CREATE TABLE "rate_windows" (
    "project_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "used" INTEGER NOT NULL,
    "last_grant" INTEGER NOT NULL,

    CONSTRAINT "rate_windows_pkey" PRIMARY KEY ("project_id","kind","window_start")
);

-- CreateTable
CREATE TABLE "usage_warnings" (
    "project_id" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "threshold" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_warnings_pkey" PRIMARY KEY ("project_id","period","threshold")
);

-- AddForeignKey
ALTER TABLE "rate_windows" ADD CONSTRAINT "rate_windows_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_warnings" ADD CONSTRAINT "usage_warnings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
