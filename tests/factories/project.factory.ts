import { expect } from '@jest/globals';
import type { components } from '../../src/sdk/index.js';
import type { TestApp } from '../setup/test-app.js';

type ProjectCreate = components['schemas']['ProjectCreate'];
export type CreatedProject = components['schemas']['ProjectWithKeys'];

let counter = 0;

/** A project creation body with realistic defaults. */
export function buildProject(overrides: Partial<ProjectCreate> = {}): ProjectCreate {
  counter += 1;
  return { name: `Test Store ${counter}`, domain: `store-${counter}.example.com`, domain_verified: true, ...overrides };
}

/** Creates a project through the platform API and returns it with its four keys. */
export async function createProject(app: TestApp, overrides: Partial<ProjectCreate> = {}): Promise<CreatedProject> {
  const { data, response } = await app.platform.POST('/platform/v1/projects', { body: buildProject(overrides) });
  expect(response.status).toBe(201);
  return data!.data;
}
