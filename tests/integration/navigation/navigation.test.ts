import { describe, expect, test } from '@jest/globals';
import { createStorefrontClient, type components } from '@commerce-api/sdk';
import { createProduct } from '../../factories/catalog.factory.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

type ItemInput = components['schemas']['NavigationItemInput'];

const store = useStore();
const { api } = store;
const shop = () =>
  createStorefrontClient({ baseUrl: store.app.baseUrl, publishableKey: store.keys.publishable_test.token });
const eventsOf = async (id: string) =>
  (
    await api.GET('/v1/events', {
      params: { query: { resource_type: 'navigation_menu', resource_id: id, order: 'asc' } },
    })
  ).data!.data.map((event) => event.type);

async function createCollection(title: string): Promise<{ id: string; handle: string }> {
  const { data, response } = await api.POST('/v1/collections', { body: { title } });
  expect(response.status).toBe(201);
  return data!.data;
}

const createMenu = (body: { title: string; handle?: string; items?: ItemInput[] }) =>
  api.POST('/v1/navigation', { body });

describe('getNavigationMenu', () => {
  test('a menu three levels deep is read by handle in one request with the publishable key, links resolved', async () => {
    const shoes = await createCollection('Shoes');
    const product = await createProduct(api, { title: 'Trail Runner 2' });
    const created = await createMenu({
      title: 'Main menu',
      items: [
        {
          title: 'Shop',
          type: 'page',
          target: '/shop',
          items: [
            {
              title: 'Shoes',
              type: 'collection',
              target: shoes.id,
              items: [{ title: 'Trail Runner 2', type: 'product', target: product.id }],
            },
          ],
        },
        { title: 'Journal', type: 'url', target: 'https://journal.example.com/' },
      ],
    });
    expect(created.response.status).toBe(201);
    expect(created.data!.data.handle).toBe('main-menu');

    const read = await shop().GET('/v1/navigation/{id}', { params: { path: { id: 'main-menu' } } });
    expect(read.response.status).toBe(200);
    expect(read.response.headers.get('access-control-allow-origin')).toBe('*');
    const item = (title: string, type: string, target: string, handle: string | null, items: unknown[] = []) => ({
      id: expect.stringMatching(/^navi_[0-9a-z]{26}$/),
      title,
      type,
      target,
      handle,
      items,
    });
    expect(read.data!.data).toEqual({
      id: created.data!.data.id,
      title: 'Main menu',
      handle: 'main-menu',
      items: [
        item('Shop', 'page', '/shop', null, [
          item('Shoes', 'collection', shoes.id, shoes.handle, [
            item('Trail Runner 2', 'product', product.id, product.handle),
          ]),
        ]),
        item('Journal', 'url', 'https://journal.example.com/', null),
      ],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(read.data!.data).toEqual(created.data!.data);
    // By id too, and a deleted product's item stays with handle null.
    await api.DELETE('/v1/products/{id}', byId(product.id));
    const byMenuId = await shop().GET('/v1/navigation/{id}', { params: { path: { id: created.data!.data.id } } });
    expect(byMenuId.data!.data.items[0].items[0].items[0]).toMatchObject({ target: product.id, handle: null });
  });

  test('404 for an unknown handle; a publishable key cannot write menus (403)', async () => {
    const missing = await shop().GET('/v1/navigation/{id}', { params: { path: { id: 'no-such-menu' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error!.error).toEqual({ code: 'not_found', message: 'Navigation menu not found.' });
    const write = await fetch(`${store.app.baseUrl}/v1/navigation`, {
      method: 'POST',
      headers: { 'X-API-Key': store.keys.publishable_test.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Footer' }),
    });
    expect(write.status).toBe(403);
  });
});

describe('createNavigationMenu', () => {
  test('refuses unsafe or wrong links, a fourth level and unknown targets with 400 on the item; nothing is written', async () => {
    const deep: ItemInput = {
      title: 'L1',
      type: 'page',
      target: '/a',
      items: [
        {
          title: 'L2',
          type: 'page',
          target: '/b',
          items: [{ title: 'L3', type: 'page', target: '/c', items: [{ title: 'L4', type: 'page', target: '/d' }] }],
        },
      ],
    };
    const cases: Array<[ItemInput[], string]> = [
      [[{ title: 'X', type: 'url', target: 'javascript:alert(1)' }], 'items[0].target'],
      [[{ title: 'X', type: 'url', target: 'data:text/html,hi' }], 'items[0].target'],
      [[{ title: 'X', type: 'url', target: '/relative' }], 'items[0].target'],
      [[{ title: 'X', type: 'page', target: '//evil.example.com' }], 'items[0].target'],
      [[{ title: 'X', type: 'page', target: '/\\evil.example.com' }], 'items[0].target'],
      [[{ title: 'X', type: 'page', target: 'pages/about' }], 'items[0].target'],
      [[{ title: 'X', type: 'collection', target: 'https://example.com' }], 'items[0].target'],
      [[{ title: 'X', type: 'product', target: 'prod_00000000000000000000000000' }], 'items[0].target'],
      [[deep], 'items[0].items[0].items[0].items'],
    ];
    for (const [items, field] of cases) {
      const answer = await createMenu({ title: 'Refused', items });
      expect(answer.response.status).toBe(400);
      expect(answer.error!.error).toMatchObject({ code: 'invalid_request', field });
    }
    const list = await api.GET('/v1/navigation', { params: { query: { limit: 100 } } });
    expect(list.data!.data.map((menu) => menu.title)).not.toContain('Refused');
  });

  test('a sent handle must be free (409); a generated one gets a suffix', async () => {
    const first = await createMenu({ title: 'Footer', handle: 'footer' });
    expect(first.response.status).toBe(201);
    const taken = await createMenu({ title: 'Footer', handle: 'footer' });
    expect(taken.response.status).toBe(409);
    expect(taken.error!.error).toMatchObject({ code: 'conflict', field: 'handle' });
    const generated = await createMenu({ title: 'Footer' });
    expect(generated.data!.data.handle).toBe('footer-2');
  });
});

describe('updateNavigationMenu and deleteNavigationMenu', () => {
  test('items replace the tree (navigation.updated with the change), no change records nothing, delete frees the handle', async () => {
    const menu = (await createMenu({ title: 'Sidebar', items: [{ title: 'Home', type: 'page', target: '/' }] })).data!
      .data;
    const updated = await api.PATCH('/v1/navigation/{id}', {
      params: { path: { id: 'sidebar' } },
      body: { items: [{ title: 'Sale', type: 'page', target: '/sale' }] },
    });
    expect(updated.data!.data.items.map((item) => item.title)).toEqual(['Sale']);
    const unchanged = await api.PATCH('/v1/navigation/{id}', { ...byId(menu.id), body: { title: 'Sidebar' } });
    expect(unchanged.data!.data.updated_at).toBe(updated.data!.data.updated_at);
    expect((await api.DELETE('/v1/navigation/{id}', byId(menu.id))).response.status).toBe(204);
    expect((await api.GET('/v1/navigation/{id}', byId(menu.id))).response.status).toBe(404);
    expect((await createMenu({ title: 'Sidebar', handle: 'sidebar' })).response.status).toBe(201);
    expect(await eventsOf(menu.id)).toEqual(['navigation.created', 'navigation.updated', 'navigation.deleted']);
  });
});
