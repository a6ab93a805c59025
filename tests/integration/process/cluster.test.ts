import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { exited, startMain, type Cleanups } from '../../setup/process.js';
import { initialisedDataDir } from '../../setup/initialised-data-dir.js';

const cleanups: Cleanups = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The API processes a clustered start forked: its children running the same script (PostgreSQL's are not). */
function apiProcesses(primary: number): number[] {
  let listed: string;
  try {
    listed = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(primary)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when no process has that parent (it has stopped them all)
  }
  const lines = listed.split('\n').filter((line) => line.includes('dist/main.js'));
  return lines.map((line) => Number(line.trim().split(/\s+/)[0]));
}

/**
 * A GET on a connection of its own (a kept-alive one could lead to a process that is gone; the primary hands
 * each new connection to its processes in turn).
 */
const get = (url: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.get(url, { agent: false, timeout: 10_000, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString() }));
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within 10 s: ${url}`)));
    request.on('error', reject);
  });
const status = async (url: string) => (await get(url)).status;

const METRICS_TOKEN = 'cluster-test-metrics-token-0123456789';

/**
 * Which processes answered: `requests` product lists, each on a connection of its own, then scrapes of
 * /metrics until two processes have answered one (each shows its own pid and its own count of those lists).
 * Answers the listProducts 200s each process counted, by pid.
 */
async function answeringProcesses(baseUrl: string, token: string, requests: number): Promise<Record<string, number>> {
  for (let n = 0; n < requests; n++)
    expect((await get(`${baseUrl}/v1/products?limit=1`, { Authorization: `Bearer ${token}` })).status).toBe(200);
  const counted: Record<string, number> = {};
  for (let n = 0; n < 20 && Object.keys(counted).length < 2; n++) {
    const scrape = await get(`${baseUrl}/metrics`, { Authorization: `Bearer ${METRICS_TOKEN}` });
    expect(scrape.status).toBe(200);
    const pid = /^commerce_process_info\{pid="(\d+)"[^}]*\} 1$/m.exec(scrape.body)?.[1];
    const lists = /^commerce_http_requests_total\{operation="listProducts",status="200"[^}]*\} (\d+)$/m.exec(
      scrape.body,
    );
    expect(pid).toMatch(/^\d+$/);
    counted[pid!] = Number(lists?.[1] ?? 0);
  }
  return counted;
}

/** A port p with p, p + 1 and p + 2 free on 127.0.0.1 (METRICS_PORT and the two API processes' ports after it). */
async function threeFreePorts(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = net.createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await free(base)) && (await free(base + 1)) && (await free(base + 2))) return base;
  }
}

const isEqualSet = (a: Set<unknown>, b: Set<unknown>) => a.size === b.size && [...a].every((item) => b.has(item));

/** The `process` label of the metrics served on `port` (every series carries the same one). */
async function metricsProcess(port: number): Promise<string | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return /process="([^"]+)"/.exec(text)?.[1];
}

describe('WEB_CONCURRENCY=2 npm start', () => {
  test('answers from both API processes (each scrape names its pid); one killed is replaced without failing later requests; SIGTERM stops all, the embedded PostgreSQL too', async () => {
    const dataDir = await initialisedDataDir('main-cluster-', cleanups);
    const metricsPort = await threeFreePorts();
    const started = await startMain(
      { DATA_DIR: dataDir, WEB_CONCURRENCY: '2', LOG_LEVEL: 'warn', METRICS_TOKEN, METRICS_PORT: String(metricsPort) },
      cleanups,
    );
    const primary = started.child.pid!;
    cleanups.push(() => {
      for (const pid of apiProcesses(primary)) process.kill(pid, 'SIGKILL');
    });
    expect(started.output()).toContain('2 API processes (WEB_CONCURRENCY), jobs in this one');
    // The address and keys are printed once, not once per process.
    expect(started.output().match(/listening on/g)).toHaveLength(1);
    const workers = apiProcesses(primary);
    expect(workers).toHaveLength(2);

    // METRICS_PORT is the owner's; API process n serves its own metrics on METRICS_PORT + n.
    const host = os.hostname();
    const served = [
      await metricsProcess(metricsPort),
      await metricsProcess(metricsPort + 1),
      await metricsProcess(metricsPort + 2),
    ];
    expect(served[0]).toBe(`${host}:${primary}`);
    expect(new Set(served.slice(1))).toEqual(new Set(workers.map((pid) => `${host}:${pid}`)));

    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    const token: string = demo.keys.secret_test.token;
    // Both processes answer: 10 lists on connections of their own, handed out in turn, 5 to each.
    const answered = await answeringProcesses(started.baseUrl, token, 10);
    expect(Object.keys(answered).map(Number).sort()).toEqual([...workers].sort());
    expect(Object.values(answered)).toEqual([5, 5]);

    process.kill(workers[0], 'SIGKILL');
    // A connection the parent handed to the process as it died is lost with it (in flight); once the parent has
    // seen the exit, every request is answered by the process left, then by both again.
    const noticed = Date.now() + 30_000;
    while (!started.output().includes('an API process exited; starting another') && Date.now() < noticed)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started.output()).toContain('an API process exited; starting another');
    const after: number[] = [];
    for (let n = 0; n < 20; n++) after.push(await status(`${started.baseUrl}/healthz`));
    expect(after.every((code) => code === 200)).toBe(true);
    const deadline = Date.now() + 60_000;
    let replaced: number[] = [];
    while (Date.now() < deadline) {
      replaced = apiProcesses(primary);
      if (replaced.length === 2 && !replaced.includes(workers[0])) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(replaced).toHaveLength(2);
    expect(replaced).not.toContain(workers[0]);
    // And the two now running answer, the new one included, once it listens (ps lists it while it starts).
    const pidOf = async () =>
      /^commerce_process_info\{pid="(\d+)"[^}]*\} 1$/m.exec(
        (await get(`${started.baseUrl}/metrics`, { Authorization: `Bearer ${METRICS_TOKEN}` })).body,
      )?.[1];
    const listens = Date.now() + 60_000;
    const seen = new Set<string | undefined>();
    while (seen.size < 2 && Date.now() < listens) {
      seen.add(await pidOf());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...seen].map(Number).sort()).toEqual([...replaced].sort());
    const answeredAfter = await answeringProcesses(started.baseUrl, token, 10);
    expect(Object.keys(answeredAfter).map(Number).sort()).toEqual([...replaced].sort());
    expect(Object.values(answeredAfter).every((count) => count > 0)).toBe(true);
    // The replacement serves its metrics on the slot's port again (once it has started).
    const expected = new Set(replaced.map((pid) => `${host}:${pid}`));
    const slots = async () =>
      new Set(
        await Promise.all(
          [metricsPort + 1, metricsPort + 2].map((port) => metricsProcess(port).catch(() => undefined)),
        ),
      );
    const slotsDeadline = Date.now() + 30_000;
    while (Date.now() < slotsDeadline && !isEqualSet(await slots(), expected))
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await slots()).toEqual(expected);

    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    started.child.kill('SIGTERM');
    expect(await exited(started.child)).toBe(0);
    for (const pid of replaced) expect(() => process.kill(pid, 0)).toThrow();
    expect(() => process.kill(postmaster, 0)).toThrow();
    expect(existsSync(pidFile)).toBe(false);
  }, 180_000);
});
