import { expect } from '@jest/globals';
import type { components } from '@commerce-api/sdk';
import type { TestApp } from '../setup/test-app.js';

type ProjectCreate = components['schemas']['ProjectCreate'];
export type CreatedProject = components['schemas']['ProjectWithKeys'];

let counter = 0;

/** A project creation body with realistic defaults. */
export function buildProject(overrides: Partial<ProjectCreate> = {}): ProjectCreate {
  counter += 1;
  return { name: `Test Store ${counter}`, domain: `store-${counter}.example.com`, domain_verified: true, ...overrides };
}

/**
 * Creates a project through the platform API and returns it with its four keys. Its rate limit and per-client
 * sign-in budgets are raised to the maximum (tests make thousands of requests a minute, lockout tests dozens
 * of failed logins for one email) unless `limits` says otherwise.
 */
export async function createProject(
  app: TestApp,
  overrides: Partial<ProjectCreate> = {},
  limits: Partial<
    Pick<
      components['schemas']['ProjectUpdate'],
      | 'rate_limit_per_minute'
      | 'monthly_quota'
      | 'auth_attempts_per_ip_per_minute'
      | 'auth_attempts_per_email_per_minute'
      | 'storefront_client_share_percent'
    >
  > = {
    rate_limit_per_minute: 1_000_000,
    auth_attempts_per_ip_per_minute: 1_000_000,
    auth_attempts_per_email_per_minute: 1_000_000,
  },
): Promise<CreatedProject> {
  const { data, response } = await app.platform.POST('/platform/v1/projects', { body: buildProject(overrides) });
  expect(response.status).toBe(201);
  if (Object.keys(limits).length === 0) return data!.data;
  const updated = await app.platform.PATCH('/platform/v1/projects/{id}', {
    params: { path: { id: data!.data.project.id } },
    body: limits,
  });
  expect(updated.response.status).toBe(200);
  return { ...data!.data, project: updated.data!.data };
}
