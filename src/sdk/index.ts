import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';

export type { paths, components, operations } from '../generated/openapi.js';
export type CommerceClient = Client<paths>;

export interface ClientOptions {
  baseUrl: string;
  /** A secret or publishable key, or the platform token, sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** A publishable key sent as `X-API-Key` (customer-auth endpoints). */
  publishableKey?: string;
  fetch?: typeof fetch;
}

/** A typed client for the Commerce API: paths, parameters, bodies and answers come from openapi.yaml. */
export function createCommerceClient(options: ClientOptions): CommerceClient {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  if (options.publishableKey) headers['X-API-Key'] = options.publishableKey;
  return createClient<paths>({ baseUrl: options.baseUrl, headers, fetch: options.fetch });
}

/** Header parameters that make a create safe to retry: pass the same key to every retry. */
export function idempotencyHeader(key: string = randomUUID()): { 'Idempotency-Key': string } {
  return { 'Idempotency-Key': key };
}
