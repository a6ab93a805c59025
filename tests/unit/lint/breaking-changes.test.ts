import { describe, expect, test } from '@jest/globals';
import { unlistedBreakingChanges, unreleasedBreaking } from '../../../codegen/breaking-changes.js';

// A contract with one list operation whose `limit` goes up to `max`.
const contract = (max: number, extra: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/customers': {
      get: {
        operationId: 'listCustomers',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: max } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    ...extra,
  },
});

const changelog = (breaking: string) =>
  `# Changelog\n\n## Unreleased\n\n### Breaking\n\n${breaking}\n\n### Added\n\n- \`GET /v1/customers\`: x\n\n` +
  `## 1.0.0 (2026-11-26)\n\n### Breaking\n\n- \`GET /v1/customers\`: an older entry.\n`;

describe('breaking changes against the previous release', () => {
  test('a narrowed parameter without a changelog entry is reported under its operation', () => {
    const { unlisted } = unlistedBreakingChanges(contract(100), contract(50), unreleasedBreaking(changelog('(none)')));
    expect(unlisted.map(([subject]) => subject)).toEqual(['GET /v1/customers']);
  });

  test('it is listed only by an entry naming its operation under Unreleased / Breaking', () => {
    const check = (text: string) =>
      unlistedBreakingChanges(contract(100), contract(50), unreleasedBreaking(changelog(text))).unlisted.length;
    expect(check('- `GET /v1/customers`: `limit` at most 50.')).toBe(0);
    // Another path that starts alike, or the same operation under Added or an older release, does not list it.
    expect(check('- `GET /v1/customers/{id}`: something else.')).toBe(1);
  });

  test('widening a parameter or adding an operation is not breaking', () => {
    const added = {
      '/v1/companies': { get: { operationId: 'listCompanies', responses: { '200': { description: 'ok' } } } },
    };
    const { bySubject } = unlistedBreakingChanges(contract(100), contract(250, added), '');
    expect(bySubject.size).toBe(0);
  });

  test('a removed operation is breaking', () => {
    const { unlisted } = unlistedBreakingChanges(
      contract(100, {
        '/v1/companies': { get: { operationId: 'listCompanies', responses: { '200': { description: 'ok' } } } },
      }),
      contract(100),
      '',
    );
    expect(unlisted.map(([subject]) => subject)).toEqual(['GET /v1/companies']);
  });
});
