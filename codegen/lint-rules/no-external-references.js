/* eslint-disable house/no-external-references -- this file names the references it forbids */
/**
 * ESLint rule house/no-external-references: comments and test titles explain a rule themselves or point inside the
 * repository (an operation or schema of openapi.yaml, a section of docs/), never to a document a future
 * maintainer will not have: the specification's numbered rules and sections, a decisions record, an issue of
 * the tracker or its deliverables.
 */
const PATTERNS = [
  { pattern: /§/, what: 'a section sign (§) of an outside document' },
  { pattern: /\bdecisions\b/i, what: 'the decisions record' },
  // "spec" as a word, not a script name (lint:spec, spec:common-responses), a file suffix (x.spec.ts) or the
  // OpenAPI document (openapi.yaml is in the repository).
  {
    pattern: /(?<![.:-])(?<!openapi[\s-])\bspec(ification)?('s)?\b(?![.:-]\w)/i,
    what: 'the specification',
  },
  // An issue by number or as "the issue's ...", "of the issue" (but "the issue is ..." is ordinary English),
  // its numbered deliverables and its "Done when" list (but "done when the queue drains" is ordinary too).
  {
    pattern: /\bissues?\s+#?\d+|\bthe issue's\b|\b(of|in|by) the issue\b|\bdeliverables?\s+\d|["']done when["']/i,
    what: 'an issue of the tracker',
  },
  { pattern: /\bDone when\b/, what: 'an issue of the tracker' },
  { pattern: /\brules?\s+\d+/i, what: 'a numbered rule of an outside document' },
  { pattern: /commerce-api\.md|DESIGN\.md|TOOLCHAIN\.md|\.\.\/shared\//, what: 'a file outside the repository' },
];
// Numbered points of the same comment or file ("rule 4 above") are inside the repository.
const INTERNAL_REFERENCE = /\brules?\s+\d+(\s*(-|–|,|and|or)\s*\d+)*\s+(above|below)\b/gi;
const TEST_FUNCTIONS = new Set(['describe', 'test', 'it']);

/** The first pattern `text` matches, once references inside the file are taken out; undefined when none. */
function problemIn(text) {
  const cleaned = text.replace(INTERNAL_REFERENCE, '');
  return PATTERNS.find(({ pattern }) => pattern.test(cleaned));
}

function testFunctionName(callee) {
  let node = callee;
  while (node) {
    if (node.type === 'Identifier') return node.name;
    if (node.type === 'MemberExpression') node = node.object;
    else if (node.type === 'CallExpression') node = node.callee;
    else return undefined;
  }
  return undefined;
}

function titleText(node) {
  if (!node) return undefined;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral') return node.quasis.map((q) => q.value.cooked).join('${}');
  return undefined;
}

export default {
  meta: {
    type: 'suggestion',
    docs: { description: 'Comments and test titles reference nothing outside the repository' },
    schema: [],
    messages: {
      external:
        'Refers to {{what}}, which is not in the repository: say what the rule is, or point to openapi.yaml or docs/.',
    },
  },
  create(context) {
    const report = (node, loc, text) => {
      const found = problemIn(text);
      if (found) context.report({ node, loc, messageId: 'external', data: { what: found.what } });
    };
    return {
      Program(program) {
        for (const comment of context.sourceCode.getAllComments()) report(program, comment.loc, comment.value);
      },
      CallExpression(node) {
        if (!TEST_FUNCTIONS.has(testFunctionName(node.callee) ?? '')) return;
        const title = titleText(node.arguments[0]);
        if (title !== undefined) report(node.arguments[0], node.arguments[0].loc, title);
      },
    };
  },
};
