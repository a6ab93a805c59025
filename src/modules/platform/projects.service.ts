import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/client.js';
import type { components } from '../../generated/openapi.js';
import type { Prisma, Project } from '../../generated/prisma/client.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { AppDeps } from '../../app-deps.js';
import { generateToken, hashToken, type KeyMode, type KeyType } from './api-keys.js';
import { notifyAuthChanged } from './auth-cache.js';
import { lockProject } from './platform.sql.js';
import { checkCurrencyCode } from '../../shared/iso-codes.js';

type ProjectCreate = components['schemas']['ProjectCreate'];
type ProjectUpdate = components['schemas']['ProjectUpdate'];
export interface IssuedKey {
  id: string;
  token: string;
}

const DEFAULT_TAX = { enabled: false, inclusive: false, rates: [] };
const KEY_KINDS = [
  ['secret_test', 'secret', 'test'],
  ['secret_live', 'secret', 'live'],
  ['publishable_test', 'publishable', 'test'],
  ['publishable_live', 'publishable', 'live'],
] as const;

/** A project with the id of its default location. */
export interface ProjectWithDefault {
  project: Project;
  defaultLocationId: string;
}

/**
 * 400 when the project would pay through Stripe without a Stripe secret key (every checkout would fail): the key is
 * set with the choice, or before it, and is not removed while Stripe is chosen.
 */
function requireStripeKey(provider: string, secretKey: string | null, field: 'payment_provider' | 'stripe_secret_key') {
  if (provider !== 'stripe' || secretKey) return;
  throw invalidField(
    field,
    field === 'payment_provider'
      ? "payment_provider stripe needs the project's Stripe secret key: send stripe_secret_key (sk_... or rk_...) with it."
      : 'The project pays through Stripe (payment_provider stripe), so its stripe_secret_key cannot be removed; choose another payment_provider first.',
  );
}

/** 400 unless the project's currency and the currencies of its exchange rates (when sent) are ISO 4217 codes. */
function checkCurrencies(input: Pick<ProjectUpdate, 'currency' | 'exchange_rates'>): void {
  checkCurrencyCode(input.currency);
  for (const code of Object.keys(input.exchange_rates ?? {})) checkCurrencyCode(code, `exchange_rates.${code}`);
}

/** Creates a project, its default location and its four keys in one transaction; tokens are returned once. */
export async function createProject(db: Database, input: ProjectCreate) {
  checkCurrencies(input);
  requireStripeKey(input.payment_provider ?? 'manual', input.stripe_secret_key ?? null, 'payment_provider');
  return db.$transaction(async (tx) => {
    const project = await tx.project.create({
      data: {
        id: newId('proj_'),
        name: input.name,
        domain: input.domain ?? null,
        domainVerified: input.domain_verified ?? false,
        extensions: input.extensions ?? ['custom_data', 'locations'],
        plan: input.plan ?? 'free',
        currency: input.currency ?? 'USD',
        locale: input.locale ?? 'en',
        tax: input.tax ?? DEFAULT_TAX,
        exchangeRates: input.exchange_rates ?? {},
        contactEmail: input.contact_email ?? null,
        reservationMinutes: input.reservation_minutes ?? 1440,
        checkoutReservationMinutes: input.checkout_reservation_minutes ?? 15,
        paymentProvider: input.payment_provider ?? 'manual',
        stripeSecretKey: input.stripe_secret_key ?? null,
        stripeWebhookSecret: input.stripe_webhook_secret ?? null,
        checkoutsPerIpPerMinute: input.checkouts_per_ip_per_minute ?? 20,
        returnWindowDays: input.return_window_days ?? 30,
        signingSecret: randomBytes(32).toString('base64url'),
      },
    });
    const location = await tx.location.create({
      data: {
        id: newId('loc_'),
        projectId: project.id,
        name: 'Default location',
        handle: 'default-location',
        isDefault: true,
      },
    });
    const keys = {} as Record<(typeof KEY_KINDS)[number][0], IssuedKey>;
    for (const [name, type, mode] of KEY_KINDS) {
      keys[name] = await issueKey(tx, project.id, type, mode);
    }
    return { project, defaultLocationId: location.id, keys };
  });
}

async function issueKey(
  tx: Prisma.TransactionClient,
  projectId: string,
  type: KeyType,
  mode: KeyMode,
): Promise<IssuedKey> {
  const token = generateToken(type, mode);
  const key = await tx.apiKey.create({
    data: { id: newId('key_'), projectId, type, mode, tokenHash: hashToken(token) },
  });
  return { id: key.id, token };
}

/** The project with its default location; 404 "Project not found." otherwise. */
export async function getProject(db: Database | Prisma.TransactionClient, id: string): Promise<ProjectWithDefault> {
  const project = await db.project.findUnique({
    where: { id },
    include: { locations: { where: { isDefault: true, deletedAt: null }, select: { id: true }, take: 1 } },
  });
  if (!project) throw notFound('Project not found.');
  const { locations, ...rest } = project;
  return { project: rest, defaultLocationId: locations[0].id };
}

/** Applies the given settings; fields not sent stay as they are. Every process sees the change at once. */
export async function updateProject(
  { db, authCache }: AppDeps,
  id: string,
  input: ProjectUpdate,
): Promise<ProjectWithDefault> {
  checkCurrencies(input);
  const updated = await db.$transaction(async (tx) => {
    // Locked: two updates racing (one removing the Stripe key, one choosing Stripe) cannot both pass the check.
    await lockProject(tx, id);
    const { project: current } = await getProject(tx, id);
    requireStripeKey(
      input.payment_provider ?? current.paymentProvider,
      input.stripe_secret_key === undefined ? current.stripeSecretKey : input.stripe_secret_key,
      input.payment_provider === undefined ? 'stripe_secret_key' : 'payment_provider',
    );
    await tx.project.update({
      where: { id },
      data: {
        name: input.name,
        domain: input.domain,
        domainVerified: input.domain_verified,
        extensions: input.extensions,
        plan: input.plan,
        currency: input.currency,
        locale: input.locale,
        tax: input.tax,
        exchangeRates: input.exchange_rates,
        suspended: input.suspended,
        rateLimitPerMinute: input.rate_limit_per_minute,
        storefrontRateLimitPerMinute: input.storefront_rate_limit_per_minute,
        authAttemptsPerIpPerMinute: input.auth_attempts_per_ip_per_minute,
        authAttemptsPerEmailPerMinute: input.auth_attempts_per_email_per_minute,
        storefrontClientSharePercent: input.storefront_client_share_percent,
        monthlyQuota: input.monthly_quota,
        contactEmail: input.contact_email,
        reservationMinutes: input.reservation_minutes,
        checkoutReservationMinutes: input.checkout_reservation_minutes,
        paymentProvider: input.payment_provider,
        stripeSecretKey: input.stripe_secret_key,
        stripeWebhookSecret: input.stripe_webhook_secret,
        checkoutsPerIpPerMinute: input.checkouts_per_ip_per_minute,
        returnWindowDays: input.return_window_days,
      },
    });
    await notifyAuthChanged(tx, `project:${id}`);
    return getProject(tx, id);
  });
  authCache?.evict(`project:${id}`);
  return updated;
}

/** Issues one more key for an existing project. */
export async function createApiKey(db: Database, projectId: string, type: KeyType, mode: KeyMode): Promise<IssuedKey> {
  return db.$transaction(async (tx) => {
    await getProject(tx, projectId);
    return issueKey(tx, projectId, type, mode);
  });
}

/** Revokes a key (idempotent) with effect in every process at once; 404 "API key not found." for an unknown id. */
export async function revokeApiKey({ db, authCache }: AppDeps, id: string): Promise<void> {
  const key = await db.apiKey.findUnique({ where: { id } });
  if (!key) throw notFound('API key not found.');
  if (!key.revokedAt) {
    await db.$transaction(async (tx) => {
      await tx.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
      await notifyAuthChanged(tx, `key:${id}`);
    });
  }
  authCache?.evict(`key:${id}`);
}
