import type { components } from '../../generated/openapi.js';
import type { OutboxEmail, Project } from '../../generated/prisma/client.js';

type Schemas = components['schemas'];
export type ProjectResource = Schemas['Project'];
export type OutboxEmailResource = Schemas['OutboxEmail'];

/** A project as the platform API shows it (never its signing secret). */
export function toProjectResource(project: Project, defaultLocationId: string): ProjectResource {
  return {
    id: project.id,
    name: project.name,
    domain: project.domain,
    domain_verified: project.domainVerified,
    extensions: project.extensions as ProjectResource['extensions'],
    plan: project.plan as ProjectResource['plan'],
    currency: project.currency,
    locale: project.locale,
    tax: project.tax as ProjectResource['tax'],
    exchange_rates: project.exchangeRates as ProjectResource['exchange_rates'],
    suspended: project.suspended,
    rate_limit_per_minute: project.rateLimitPerMinute,
    storefront_rate_limit_per_minute: project.storefrontRateLimitPerMinute,
    auth_attempts_per_ip_per_minute: project.authAttemptsPerIpPerMinute,
    auth_attempts_per_email_per_minute: project.authAttemptsPerEmailPerMinute,
    storefront_client_share_percent: project.storefrontClientSharePercent,
    monthly_quota: project.monthlyQuota,
    contact_email: project.contactEmail,
    reservation_minutes: project.reservationMinutes,
    checkout_reservation_minutes: project.checkoutReservationMinutes,
    payment_provider: project.paymentProvider as ProjectResource['payment_provider'],
    stripe_secret_key_set: project.stripeSecretKey !== null,
    stripe_webhook_secret_set: project.stripeWebhookSecret !== null,
    checkouts_per_ip_per_minute: project.checkoutsPerIpPerMinute,
    return_window_days: project.returnWindowDays,
    default_location_id: defaultLocationId,
    created_at: project.createdAt.toISOString(),
    updated_at: project.updatedAt.toISOString(),
  };
}

/** A recorded e-mail as the outbox shows it. */
export function toOutboxEmailResource(email: OutboxEmail): OutboxEmailResource {
  return {
    id: email.id,
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    subject: email.subject,
    text: email.text,
    html: email.html,
    template: email.template,
    data: email.data as Record<string, unknown>,
    locale: email.locale,
    created_at: email.createdAt.toISOString(),
  };
}
