import type { Rule } from 'eslint';

/** The rule house/no-external-references (no-external-references.js), typed for the tests that import it. */
declare const rule: Rule.RuleModule;
export default rule;
