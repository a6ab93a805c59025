import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { CreatedProject } from '../../factories/project.factory.js';
import type { TestApp } from '../../setup/test-app.js';
import { createProject } from '../../factories/project.factory.js';
import { startTestApp } from '../../setup/test-app.js';
import { startSlowLink } from '../../setup/slow-link.js';

// openapi.yaml, "Consistency and read replicas": "a read sees every write that was answered before it was sent",
// whichever process answers it. Process b caches first-page totals and search answers; a write answered by process a
// must show in b's very next read, not once a's notification happens to reach b. Process b reaches the database
// through a link that delays what the server sends by a few milliseconds (a process in another zone): its
// notifications arrive that much after a's answer, as they may on any network.
let a: TestApp;
let b: TestApp;
let store: CreatedProject;
let link: { url: string; close: () => Promise<void> };
beforeAll(async () => {
  a = await startTestApp();
  link = await startSlowLink(a.deps.config.databaseUrl!, LINK_DELAY_MS);
  b = await startTestApp({ databaseUrl: link.url });
  store = await createProject(a);
});
afterAll(async () => {
  await b?.close();
  await link?.close();
  await a?.close();
});

const ROUNDS = 50;
// Well under a cross-zone round trip; far more than the few hundred microseconds a's answer takes to reach b here.
const LINK_DELAY_MS = 5;

describe('a read on another process right after a write', () => {
  test('the first page total of customers counts a customer created through the other process', async () => {
    const apiA = a.client(store.keys.secret_test.token);
    const apiB = b.client(store.keys.secret_test.token);
    const total = async () =>
      (await apiB.GET('/v1/customers', { params: { query: { limit: 1 } } })).data!.pagination.total;
    let stale = 0;
    for (let n = 0; n < ROUNDS; n++) {
      await total(); // cached in b
      const created = await apiA.POST('/v1/customers', {
        body: { email: `cross-${n}@example.com`, first_name: 'Cross', last_name: `${n}` },
      });
      expect(created.response.status).toBe(201);
      if ((await total()) !== n + 1) stale++;
    }
    expect(stale).toBe(0);
  });

  test('a search counts a product created through the other process', async () => {
    const apiA = a.client(store.keys.secret_test.token);
    const search = b.client(store.keys.publishable_test.token);
    const total = async () =>
      (await search.GET('/v1/search', { params: { query: { q: 'quokka' } } })).data!.data.products.total;
    let stale = 0;
    for (let n = 0; n < ROUNDS; n++) {
      await total(); // cached in b
      const created = await apiA.POST('/v1/products', {
        body: { title: `Quokka Lamp ${n}`, status: 'active', variants: [{ title: 'One', price: 1000 }] },
      });
      expect(created.response.status).toBe(201);
      if ((await total()) !== n + 1) stale++;
    }
    expect(stale).toBe(0);
  });
});
