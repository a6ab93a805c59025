import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import type { Logger } from './shared/logger.js';

/**
 * WEB_CONCURRENCY as a number of API processes: unset or empty is 1, `auto` the machine's CPUs; anything else
 * must be a whole number from 1 to 64 (throws with the reason otherwise).
 */
export function webConcurrency(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  if (value === 'auto') return os.availableParallelism();
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 64)
    throw new Error(`WEB_CONCURRENCY must be auto or a whole number from 1 to 64, got "${value}"`);
  return count;
}

/** Whether this process is an API process a clustered `npm start` forked (it serves; its parent owns the rest). */
export const isApiWorker = (): boolean => cluster.isWorker;

/** The API processes of a clustered start: stopped in order, or at once. */
export interface ApiWorkers {
  /** The port they share. */
  port: number;
  /** SIGTERM to each (each stops in order: open requests finish), resolved once all have exited. */
  stop(): Promise<void>;
  /** SIGTERM again: each cuts its open requests and exits now. */
  stopNow(): void;
}

/**
 * Forks `count` API processes of this script (node:cluster: they share one port) with `env(slot)` added to this
 * process's environment (slots 1 to `count`), and resolves once all listen (rejects if one exits before that). A
 * process that exits while they run is replaced in the same slot (the same environment), logged as a warning.
 */
export async function startApiWorkers(
  count: number,
  env: (slot: number) => Record<string, string>,
  log: Logger,
): Promise<ApiWorkers> {
  let stopping = false;
  const fork = (slot: number): Worker => cluster.fork(env(slot));
  const running = new Set<Worker>();
  const started = (worker: Worker, slot: number) => {
    running.add(worker);
    worker.once('exit', (code, signal) => {
      running.delete(worker);
      if (stopping) return;
      log.warn('an API process exited; starting another', { pid: worker.process.pid, code, signal });
      started(fork(slot), slot);
    });
  };
  const port = new Promise<number>((resolve, reject) => {
    let listening = 0;
    // Each process also listens on its own METRICS_PORT (when set): only the shared API port counts.
    const metricsPorts = new Set(
      Array.from({ length: count }, (_, n) => Number(env(n + 1).METRICS_PORT || -1)).filter((port) => port > 0),
    );
    cluster.on('listening', (_worker, address) => {
      if (metricsPorts.has(address.port)) return;
      if (++listening === count) resolve(address.port);
    });
    cluster.once('exit', (_worker, code, signal) => {
      // A start that fails fails every time: stop the others instead of replacing them again and again.
      stopping = true;
      for (const worker of running) worker.process.kill('SIGTERM');
      reject(new Error(`An API process exited before listening (${code ?? signal}).`));
    });
  });
  for (let slot = 1; slot <= count; slot++) started(fork(slot), slot);
  const listening = await port;
  cluster.removeAllListeners('exit');
  cluster.removeAllListeners('listening');
  const exited = (worker: Worker) =>
    new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve())));
  return {
    port: listening,
    async stop() {
      stopping = true;
      const all = [...running];
      for (const worker of all) worker.process.kill('SIGTERM');
      await Promise.all(all.map(exited));
    },
    stopNow() {
      stopping = true;
      for (const worker of running) worker.process.kill('SIGTERM');
    },
  };
}
