import type { ErrorDetail } from '../shared/errors.js';

// Names other APIs use for what this one calls differently.
const ALIASES: Record<string, string> = {
  q: 'search',
  query: 'search',
  term: 'search',
  page: 'cursor',
  starting_after: 'cursor',
  after: 'cursor',
  per_page: 'limit',
  page_size: 'limit',
  size: 'limit',
  sort_by: 'sort',
  order_by: 'sort',
  direction: 'order',
  include: 'expand',
};

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}

/** The accepted parameter a client probably meant by `name`, if one is close. */
export function closestParameter(name: string, accepted: readonly string[]): string | undefined {
  const normalized = name.toLowerCase().replace(/-/g, '_').replace(/\[\]$/, '');
  if (accepted.includes(normalized)) return normalized;
  const alias = ALIASES[normalized];
  if (alias && accepted.includes(alias)) return alias;
  const near = accepted.filter(
    (candidate) => distance(normalized, candidate) <= Math.min(2, Math.floor(candidate.length / 3)),
  );
  return near.length === 1 ? near[0] : undefined;
}

/** One detail per query parameter the operation does not take, naming it and what it takes instead. */
export function unknownParameters(query: Record<string, unknown>, accepted: readonly string[]): ErrorDetail[] {
  return Object.keys(query)
    .filter((name) => !accepted.includes(name))
    .map((name) => {
      const meant = closestParameter(name, accepted);
      const takes = accepted.length > 0 ? `It takes: ${accepted.join(', ')}.` : 'It takes no query parameters.';
      return {
        field: name,
        message: `${name} is not a query parameter of this operation.${meant ? ` Did you mean ${meant}?` : ''} ${takes}`,
      };
    });
}
