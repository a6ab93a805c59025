-- CreateTable
CREATE TABLE "job_worker_heartbeats" (
    "worker" TEXT NOT NULL,
    "ran_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "job_worker_heartbeats_pkey" PRIMARY KEY ("worker")
);

-- CreateIndex
CREATE INDEX "job_worker_heartbeats_ran_at_idx" ON "job_worker_heartbeats"("ran_at");
