import { describe, expect, test } from '@jest/globals';
import type { components } from '@commerce-api/sdk';
import { createProject } from '../../factories/project.factory.js';
import { buildWebhook, createWebhook } from '../../factories/webhook.factory.js';
import { openapiJson } from '../../../src/generated/document.js';
import { json } from '../../setup/http.js';
import { byId } from '../../setup/requests.js';
import { useStore } from '../../setup/store.js';

// The default configuration: private network targets are not allowed.
const store = useStore();
const { app, api } = store;

type EventType = components['schemas']['EventType'];
const URL_ = 'https://hooks.example.com/commerce';

describe('createWebhook', () => {
  test('answers 201 with the subscription and its secret (whsec_ and the base64 of 32 random bytes), active by default', async () => {
    const before = Date.now();
    const webhook = await createWebhook(api, URL_, { events: ['customer.created', 'customer.updated'] });
    expect(webhook).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-z]{26}$/),
      url: URL_,
      events: ['customer.created', 'customer.updated'],
      status: 'active',
      secret: expect.stringMatching(/^whsec_/),
      created_at: expect.any(String),
      updated_at: webhook.created_at,
    });
    expect(Buffer.from(webhook.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(new Date(webhook.created_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    const other = await createWebhook(api, URL_);
    expect(other.secret).not.toBe(webhook.secret);
  });

  // Types no operation emits yet are refused (tests/integration/webhooks/event-catalogue.test.ts).
  test('can start paused; emitted types of every group are subscribable, up to 11', async () => {
    const eleven: EventType[] = [
      'order.created',
      'order.paid',
      'fulfillment.created',
      'navigation.updated',
      'shipping.zone.deleted',
      'location.deleted',
      'purchase_order.received',
      'refund.created',
      'price_list.updated',
      'inventory.low',
      'usage.warning',
    ];
    const webhook = await createWebhook(api, URL_, { events: eleven, status: 'paused' });
    expect(webhook).toMatchObject({ events: eleven, status: 'paused' });
  });

  test.each([
    ['no events', { events: [] }, 'events', 'events must have at least 1 item.'],
    [
      '12 events',
      {
        events: [
          'product.created',
          'product.updated',
          'product.deleted',
          'collection.created',
          'collection.updated',
          'collection.deleted',
          'order.created',
          'order.updated',
          'order.paid',
          'customer.created',
          'customer.updated',
          'customer.deleted',
        ],
      },
      'events',
      'events must have at most 11 items.',
    ],
    [
      'a repeated event',
      { events: ['customer.created', 'customer.created'] },
      'events',
      'events must not contain duplicates.',
    ],
    ['an http URL', { url: 'http://hooks.example.com/commerce' }, 'url', 'url must be an https:// URL.'],
    [
      'a URL of 2049 characters',
      { url: `https://hooks.example.com/${'a'.repeat(2049 - 26)}` },
      'url',
      'url must be at most 2048 characters long.',
    ],
    ['no URL at all', { url: 'not a url' }, 'url', 'url must be an https:// URL.'],
  ])('%s answers 400 naming the field', async (_label, overrides, field, message) => {
    const { response, error } = await api.POST('/v1/webhooks', {
      body: { ...buildWebhook(URL_), ...overrides } as never,
    });
    expect(response.status).toBe(400);
    expect(error!.error).toMatchObject({ code: 'invalid_request', field, message });
  });

  test('an unknown event type answers 400 naming it; several name each', async () => {
    // The message counts the event catalogue (the EventType enum of openapi.yaml).
    const count = (JSON.parse(openapiJson) as { components: { schemas: { EventType: { enum: string[] } } } }).components
      .schemas.EventType.enum.length;
    const one = await api.POST('/v1/webhooks', {
      body: { url: URL_, events: ['customer.created', 'order.shipped'] } as never,
    });
    expect(one.response.status).toBe(400);
    expect(one.error!.error).toEqual({
      code: 'invalid_request',
      field: 'events[1]',
      message: `events[1] must be one of the ${count} values listed in the API reference; "order.shipped" is not one of them.`,
    });
    const two = await api.POST('/v1/webhooks', {
      body: { url: URL_, events: ['Customer.Created', 'customer.created', 'product.exploded'] } as never,
    });
    expect(two.error!.error.code).toBe('validation_error');
    expect(two.error!.error.details!.map((d) => d.message)).toEqual([
      `events[0] must be one of the ${count} values listed in the API reference; "Customer.Created" is not one of them.`,
      `events[2] must be one of the ${count} values listed in the API reference; "product.exploded" is not one of them.`,
    ]);
  });

  test.each([
    ['https://127.0.0.1/hook', '127.0.0.1 is loopback'],
    ['https://[::1]:8443/hook', '::1 is loopback'],
    ['https://10.0.0.7/hook', '10.0.0.7 is private network'],
    ['https://192.168.1.20/hook', '192.168.1.20 is private network'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is link-local'],
    ['https://0x7f.1/hook', '127.0.0.1 is loopback'],
    ['https://127.0.0.1:4020/hook', '127.0.0.1 is loopback'],
    ['https://localhost:4020/hook', 'localhost is loopback'],
  ])(
    'a host that is a non-public address literal or localhost (%s) is refused at once, naming ALLOW_PRIVATE_NETWORK_TARGETS',
    async (url, kind) => {
      const { response, error } = await api.POST('/v1/webhooks', { body: buildWebhook(url) });
      expect(response.status).toBe(400);
      expect(error!.error).toEqual({
        code: 'invalid_request',
        field: 'url',
        message: `url must not point to a non-public address (${kind}). To deliver to a receiver on this machine or network during development, start the server with ALLOW_PRIVATE_NETWORK_TARGETS=true.`,
      });
    },
  );

  test('credentials in the URL are refused; a host name is accepted (its addresses are checked on every delivery)', async () => {
    const withCredentials = await api.POST('/v1/webhooks', {
      body: buildWebhook('https://user:secret@hooks.example.com/'),
    });
    expect(withCredentials.response.status).toBe(400);
    expect(withCredentials.error!.error.field).toBe('url');
    expect(
      (await api.POST('/v1/webhooks', { body: buildWebhook('https://hooks.internal.example.com:8443/hook') })).response
        .status,
    ).toBe(201);
  });

  test('Idempotency-Key replays the creation answer, secret included, without a second subscription', async () => {
    const headers = { 'Idempotency-Key': `webhook-${Date.now()}` };
    const first = await api.POST('/v1/webhooks', {
      body: buildWebhook('https://idempotent.example.com/'),
      params: { header: headers },
    });
    const again = await api.POST('/v1/webhooks', {
      body: buildWebhook('https://idempotent.example.com/'),
      params: { header: headers },
    });
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
  });

  test('needs a secret key: a publishable key is 403, no key 401', async () => {
    const publishable = app.client(store.keys.publishable_test.token);
    expect((await publishable.POST('/v1/webhooks', { body: buildWebhook(URL_) })).response.status).toBe(403);
    expect((await app.client().GET('/v1/webhooks')).response.status).toBe(401);
  });
});

describe('getWebhook, listWebhooks', () => {
  test('never show the secret; fields picks fields', async () => {
    const webhook = await createWebhook(api, 'https://read.example.com/');
    const { secret: _secret, ...shown } = webhook;
    const read = await api.GET('/v1/webhooks/{id}', byId(webhook.id));
    expect(read.data!.data).toEqual(shown);
    const sparse = await api.GET('/v1/webhooks/{id}', {
      params: { path: { id: webhook.id }, query: { fields: ['url'] } },
    });
    expect(sparse.data!.data).toEqual({ id: webhook.id, url: 'https://read.example.com/' });
    const raw = await json(
      await fetch(`${app.baseUrl}/v1/webhooks?limit=100`, {
        headers: { Authorization: `Bearer ${store.keys.secret_test.token}` },
      }),
    );
    expect(JSON.stringify(raw)).not.toContain('whsec_');
  });

  test("lists the project's subscriptions newest first with cursor pages; another project sees none of them", async () => {
    const other = await createProject(app);
    const otherApi = app.client(other.keys.secret_test.token);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createWebhook(otherApi, `https://list-${i}.example.com/`));
    const page1 = await otherApi.GET('/v1/webhooks', { params: { query: { limit: 2 } } });
    expect(page1.data!.data.map((w) => w.id)).toEqual([made[2].id, made[1].id]);
    expect(page1.data!.pagination).toMatchObject({ has_more: true, total: 3 });
    const page2 = await otherApi.GET('/v1/webhooks', {
      params: { query: { limit: 2, cursor: page1.data!.pagination.cursor! } },
    });
    expect(page2.data!.data.map((w) => w.id)).toEqual([made[0].id]);
    const asc = await otherApi.GET('/v1/webhooks', { params: { query: { order: 'asc' } } });
    expect(asc.data!.data.map((w) => w.id)).toEqual(made.map((w) => w.id));
    expect((await api.GET('/v1/webhooks/{id}', byId(made[0].id))).response.status).toBe(404);
  });

  test('an unknown id answers 404 "Webhook subscription not found."', async () => {
    const { response, error } = await api.GET('/v1/webhooks/{id}', byId('wh_01jd5s0a2c4e6g8j0l2n4q6s8u'));
    expect(response.status).toBe(404);
    expect(error).toEqual({ error: { code: 'not_found', message: 'Webhook subscription not found.' } });
  });
});

describe('updateWebhook', () => {
  test('events replaces the whole array; url and status change; the secret stays', async () => {
    const webhook = await createWebhook(api, URL_, { events: ['customer.created', 'customer.updated'] });
    const { data, response } = await api.PATCH('/v1/webhooks/{id}', {
      ...byId(webhook.id),
      body: { events: ['product.deleted'] },
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ events: ['product.deleted'], url: URL_, status: 'active' });
    const moved = await api.PATCH('/v1/webhooks/{id}', {
      ...byId(webhook.id),
      body: { url: 'https://new.example.com/hook', status: 'paused' },
    });
    expect(moved.data!.data).toMatchObject({
      url: 'https://new.example.com/hook',
      status: 'paused',
      events: ['product.deleted'],
    });
    const row = await app.deps.db.webhookSubscription.findUniqueOrThrow({ where: { id: webhook.id } });
    expect(row.secret).toBe(webhook.secret);
  });

  test('"a write that changes nothing leaves the version, and so the tag, as it was": updated_at and ETag stay', async () => {
    const webhook = await createWebhook(api, URL_, { events: ['customer.created', 'customer.updated'] });
    const read = await api.GET('/v1/webhooks/{id}', byId(webhook.id));
    const tag = read.response.headers.get('ETag');
    expect(tag).toMatch(/^"[\w-]{22}"$/);
    for (const body of [
      { status: 'active' as const },
      { url: URL_ },
      { events: ['customer.created' as const, 'customer.updated' as const] },
      { url: URL_, events: ['customer.created' as const, 'customer.updated' as const], status: 'active' as const },
    ]) {
      await new Promise((resolve) => setTimeout(resolve, 5)); // a write would show in updated_at's milliseconds
      const same = await api.PATCH('/v1/webhooks/{id}', {
        params: { path: { id: webhook.id }, header: { 'If-Match': tag! } },
        body,
      });
      expect([same.response.status, same.data?.data]).toEqual([200, read.data!.data]);
      expect(same.response.headers.get('ETag')).toBe(tag);
    }
    // The same types in another order are another version (events is an ordered array).
    const reordered = await api.PATCH('/v1/webhooks/{id}', {
      ...byId(webhook.id),
      body: { events: ['customer.updated', 'customer.created'] },
    });
    expect(reordered.response.headers.get('ETag')).not.toBe(tag);
  });

  test('applies the same rules as create: 1-11 known types, https, no private address literal, at least one field', async () => {
    const webhook = await createWebhook(api, URL_);
    const cases = [
      [{ events: [] }, 'events'],
      [{ events: ['nope'] }, 'events[0]'],
      [{ url: 'https://10.0.0.1/' }, 'url'],
      [{ url: 'ftp://example.com/' }, 'url'],
      [{ status: 'disabled' }, 'status'],
      [{}, 'body'],
    ] as const;
    for (const [body, field] of cases) {
      const { response, error } = await api.PATCH('/v1/webhooks/{id}', { ...byId(webhook.id), body: body as never });
      expect(response.status).toBe(400);
      expect(error!.error.field).toBe(field);
    }
    expect(
      (await api.PATCH('/v1/webhooks/{id}', { ...byId('wh_01jd5s0a2c4e6g8j0l2n4q6s8u'), body: { status: 'paused' } }))
        .response.status,
    ).toBe(404);
  });
});

describe('deleteWebhook', () => {
  test('answers 204; afterwards the subscription is 404 and gone from the list', async () => {
    const webhook = await createWebhook(api, 'https://delete.example.com/');
    expect((await api.DELETE('/v1/webhooks/{id}', byId(webhook.id))).response.status).toBe(204);
    expect((await api.GET('/v1/webhooks/{id}', byId(webhook.id))).response.status).toBe(404);
    expect((await api.DELETE('/v1/webhooks/{id}', byId(webhook.id))).response.status).toBe(404);
    const list = await api.GET('/v1/webhooks', { params: { query: { limit: 100 } } });
    expect(list.data!.data.map((w) => w.id)).not.toContain(webhook.id);
  });
});
