/** The password rule: 8-128 characters with an uppercase letter, a lowercase letter and a digit. */
export const PASSWORD_LENGTH = { min: 8, max: 128 } as const;

// Unicode classes, so "Ä" counts as uppercase and "٣" as a digit, as a customer would expect.
const CLASSES = [
  { pattern: /\p{Lu}/u, name: 'an uppercase letter' },
  { pattern: /\p{Ll}/u, name: 'a lowercase letter' },
  { pattern: /\p{Nd}/u, name: 'a digit' },
] as const;

const listed = (items: string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * What `password` lacks under the rule, as a message naming `field` ("password needs an uppercase letter and
 * a digit."); undefined when it complies. Length counts characters (code points), as the schema does.
 */
export function passwordProblem(password: string, field = 'password'): string | undefined {
  const length = [...password].length;
  const problems: string[] = [];
  if (length < PASSWORD_LENGTH.min || length > PASSWORD_LENGTH.max) {
    problems.push(`must be ${PASSWORD_LENGTH.min}-${PASSWORD_LENGTH.max} characters long`);
  }
  const missing = CLASSES.filter(({ pattern }) => !pattern.test(password)).map(({ name }) => name);
  if (missing.length > 0) problems.push(`needs ${listed(missing)}`);
  return problems.length === 0 ? undefined : `${field} ${problems.join(' and ')}.`;
}
