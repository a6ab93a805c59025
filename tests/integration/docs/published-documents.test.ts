import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, test } from '@jest/globals';
import { openapiJson, openapiYaml } from '../../../src/generated/document.js';
import { useApp } from '../../setup/store.js';

const app = useApp();

/** A GET with exactly these headers on a connection of its own (fetch would add and undo its own Accept-Encoding); the raw bytes of the answer. */
function rawGet(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
    http
      .get(new URL(path, app.baseUrl), { headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) }),
        );
      })
      .on('error', reject);
  });
}

describe('published documents: compressed once, cached with an ETag', () => {
  test('openapi.json comes as brotli or gzip when accepted, plain otherwise, the same document each way', async () => {
    const plain = await rawGet('/openapi.json');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(plain.bytes.toString()).toBe(JSON.stringify(JSON.parse(openapiJson))); // the document, as served before

    const gzip = await rawGet('/openapi.json', { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.bytes).toString()).toBe(plain.bytes.toString());
    // Brotli is made once, on the thread pool, when first asked for; until it is ready a client that also takes
    // gzip gets gzip (so the first visitor does not wait for it), then brotli.
    const first = await rawGet('/openapi.json', { 'Accept-Encoding': 'br, gzip' });
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(first.bytes).toString()).toBe(plain.bytes.toString());
    let brotli = first;
    for (let attempt = 0; attempt < 100 && brotli.headers['content-encoding'] !== 'br'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      brotli = await rawGet('/openapi.json', { 'Accept-Encoding': 'br, gzip' });
    }
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(brotli.bytes).toString()).toBe(plain.bytes.toString());
    expect(brotli.bytes.length).toBeLessThan(plain.bytes.length / 5);
    for (const answer of [plain, gzip, first, brotli]) {
      expect(answer.headers.vary).toMatch(/Accept-Encoding/);
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(answer.headers.etag).toBe(plain.headers.etag);
    }
  });

  test('a matching If-None-Match answers 304 without a body; another tag gets the document', async () => {
    const first = await rawGet('/openapi.yaml', { 'Accept-Encoding': 'gzip' });
    expect(gunzipSync(first.bytes).toString()).toBe(openapiYaml);
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);

    const again = await rawGet('/openapi.yaml', { 'If-None-Match': etag, 'Accept-Encoding': 'gzip' });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.etag).toBe(etag);

    const stale = await rawGet('/openapi.yaml', { 'If-None-Match': '"an-older-version"' });
    expect(stale.status).toBe(200);
    expect(stale.bytes.toString()).toBe(openapiYaml);
  });

  test("the reference page's assets keep their day-long cache and are compressed too", async () => {
    const asset = await rawGet('/docs/assets/swagger-ui-bundle.js', { 'Accept-Encoding': 'br' });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-encoding']).toBe('br');
    expect(asset.headers['content-type']).toMatch(/^application\/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=86400');
    const page = await rawGet('/docs', { 'Accept-Encoding': 'gzip' });
    expect(gunzipSync(page.bytes).toString()).toContain('swagger-ui');
  });

  test('other answers are left as they were (no ETag, no compression)', async () => {
    const health = await rawGet('/healthz', { 'Accept-Encoding': 'gzip, br' });
    expect(health.headers.etag).toBeUndefined();
    expect(health.headers['content-encoding']).toBeUndefined();
    expect(health.headers['cache-control']).toBe('no-store');
  });
});
