import { describe, test } from '@jest/globals';
import { RuleTester } from 'eslint';
import rule from '../../../codegen/lint-rules/no-external-references.js';

// RuleTester writes one jest test per case (its title is the case's code).
RuleTester.describe = describe;
RuleTester.it = test;
RuleTester.itOnly = test.only;

const flagged = [{ messageId: 'external' }];

new RuleTester().run('house/no-external-references', rule, {
  valid: [
    // What a rule is, or where it lives in the repository.
    '// 5 failed logins lock the email for 1 minute, 10 for 5 minutes, 20 or more for 15 (openapi.yaml, loginCustomer).',
    "/** The project's tax setting (openapi.yaml, `TaxSettings`). */ const tax = 1;",
    "describe('chooseZone (the first active zone listing the country, else rest of world)', () => {});",
    // Ordinary English and names that only look like references.
    '// The issue is that pg-boss polls; the loop is done when the queue drains.',
    '// The retry job (rule 4 above) repairs the rest; see rules 1-3 below.',
    '// Run npm run lint:spec after editing openapi.yaml, then npm run spec:common-responses.',
    '// The OpenAPI spec is openapi.yaml; a x.spec.ts file is a test.',
    '// Merchandising rules apply in priority order.',
    // Only the titles of describe, test and it are titles.
    "log('decisions §4');",
  ],
  invalid: [
    { code: '// The claims of decisions §4.', errors: flagged },
    { code: '/** spec rule 5: the lockout. */ const steps = 3;', errors: flagged },
    { code: '// Log lines carry no stack traces (issue 18).', errors: flagged },
    { code: '// Spec limit: at most 10 carrier rates.', errors: flagged },
    { code: '// Authentication rules 1-4 for the credential.', errors: flagged },
    { code: "// The issue's acceptance walk-through.", errors: flagged },
    { code: '// Security checks (deliverable 5).', errors: flagged },
    { code: '// See ../shared/spec/commerce-api.md.', errors: flagged },
    { code: "describe('Done when: the VIP group', () => {});", errors: flagged },
    { code: "describe('the store domain rule (rule 6)', () => {});", errors: flagged },
    { code: 'test(`mergeRates (decisions §5)`, () => {});', errors: flagged },
    { code: "it.each([1])('retry %s (spec: Delivery and retry)', () => {});", errors: flagged },
  ],
});
