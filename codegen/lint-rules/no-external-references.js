/**
 * ESLint rule house/no-external-references: comments and test titles explain a rule themselves or point inside the
 * repository (an operation or schema of openapi.yaml, a section of docs/), never to a document a future
 * maintainer will not have: the specification's numbered rules and sections, a decisions record, an issue of
 * the tracker or its deliverables.
 */
const PATTERNS = [
  { pattern: /§/, what: 'a section sign (§) of an outside document' },
  { pattern: /\bdecisions\b/i, what: 'the decisions record' },
  { pattern: /\bspec(ification)?('s)?\b(?!:common)/i, what: 'the specification', unless: /lint:spec\b/ },
  {
    pattern: /\bissue\s+#?\d+|\bthe issue('s)?\b|\bdeliverables?\s+\d|\bdone when\b/i,
    what: 'an issue of the tracker',
  },
  { pattern: /\brules?\s+\d+/i, what: 'a numbered rule of an outside document' },
  { pattern: /commerce-api\.md|DESIGN\.md|TOOLCHAIN\.md|\.\.\/shared\//, what: 'a file outside the repository' },
];
const TEST_FUNCTIONS = new Set(['describe', 'test', 'it']);

function problemIn(text) {
  const cleaned = text.replace(/lint:spec\b/g, '');
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
