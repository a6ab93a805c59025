import { describe, expect, test } from '@jest/globals';
import { StorefrontClients } from '../../../src/modules/usage/storefront-clients.js';
import { windowsAt } from '../../../src/modules/usage/windows.js';
import { createProject } from '../../factories/project.factory.js';
import { useApp } from '../../setup/store.js';

// Each process leases blocks of a storefront client's share (StorefrontClients) and keeps the leases of the clients
// seen lately: these tests take from the leases directly, with a small bound, on the app's database.
const app = useApp();

/** Requests the client `key` of `projectId` is accepted (at most `limit + 1` asked) before its first refusal. */
async function acceptedUntilRefused(
  clients: StorefrontClients,
  projectId: string,
  key: string,
  limit: number,
  now: Date,
): Promise<number> {
  let accepted = 0;
  while (accepted <= limit) {
    const decision = await clients.take(projectId, [key], limit, windowsAt(now), now);
    if (decision.refusedBy !== null) break;
    accepted++;
  }
  return accepted;
}

describe('StorefrontClients: one project holds at most a quarter of the leases', () => {
  test("another store's many clients never cost a client part of its share: it is refused only once it spent all of it", async () => {
    const quiet = await createProject(app);
    const busy = await createProject(app);
    const clients = new StorefrontClients(app.deps.db, 8);
    const now = new Date();
    const limit = 100; // leased 5 at a time (clientBlock)
    const first = await clients.take(quiet.project.id, ['sf_ip:10.0.0.1'], limit, windowsAt(now), now);
    expect(first).toEqual({ refusedBy: null, limit, remaining: 99 });
    // The busy store's traffic: more clients than the whole bound, each taking one request.
    for (let n = 0; n < 20; n++) {
      const decision = await clients.take(busy.project.id, [`sf_ip:10.1.0.${n}`], limit, windowsAt(now), now);
      expect(decision.refusedBy).toBeNull();
    }
    // The quiet store's client still has the rest of its share, leased or not: 99 more, then 429.
    expect(await acceptedUntilRefused(clients, quiet.project.id, 'sf_ip:10.0.0.1', limit, now)).toBe(99);
  });
});
