/**
 * A list page's items carry the JSON text they were measured by (listPage serialises each item once to bound
 * the page's bytes, or PostgreSQL wrote it), so the answer is assembled from those texts instead of encoding
 * every item a second time.
 */

const ITEM_JSON = Symbol('item JSON');

type WithItemJson = unknown[] & { [ITEM_JSON]?: readonly string[] };

/**
 * Attaches `json` (each item's JSON.stringify, in order) to `items`, not enumerable, so copies and
 * JSON.stringify never see it. The array and its items must not change afterwards: a changed page is a new
 * array (map, spread, slice), which carries none and is encoded as usual.
 */
export function withItemJson<T>(items: T[], json: readonly string[]): T[] {
  if (json.length !== items.length) throw new Error('Each item needs its JSON text.');
  Object.defineProperty(items, ITEM_JSON, { value: json });
  return items;
}

/**
 * Items (objects) known by their JSON text alone (e.g. written by PostgreSQL as the contract shows them), carrying
 * it as withItemJson does: each item is parsed from its text the first time it is read, so a page whose items
 * nobody reads in the process is sent as the texts joined, and one that is read (a check, a copy) sees equal
 * objects. A proxy over the texts: per page one object, where an accessor per item cost about 2 µs each.
 */
export function itemsFromJson<T extends object>(json: readonly string[]): T[] {
  const items: unknown[] = withItemJson([...json], json);
  return new Proxy(items, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      // Only an index still holds its text: reading it once replaces it with the parsed item.
      if (typeof value !== 'string' || typeof key !== 'string') return value;
      return (target[Number(key)] = JSON.parse(value) as T);
    },
  }) as T[];
}

/**
 * `body` (an object) as JSON.stringify encodes it, its arrays that carry their items' JSON (withItemJson,
 * itemsFromJson) joined from those texts (which parse to the items, if not always byte for byte as
 * JSON.stringify would write them); undefined when none of its properties carries any (the usual encoding is
 * then as good).
 */
export function encodeWithItemJson(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const entries = Object.entries(body);
  // Most answers carry none: told before anything is encoded, so they are encoded once (by Koa), not twice.
  if (!entries.some(([, value]) => itemJsonOf(value) !== undefined)) return undefined;
  const members: string[] = [];
  for (const [key, value] of entries) {
    const json = itemJsonOf(value);
    if (json) {
      members.push(`${JSON.stringify(key)}:[${json.join(',')}]`);
      continue;
    }
    const encoded = JSON.stringify(value) as string | undefined; // undefined for undefined, functions, symbols: left out
    if (encoded !== undefined) members.push(`${JSON.stringify(key)}:${encoded}`);
  }
  return `{${members.join(',')}}`;
}

/** The items' JSON texts an array carries (one per item), or undefined. */
function itemJsonOf(value: unknown): readonly string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const json = (value as WithItemJson)[ITEM_JSON];
  return json && json.length === value.length ? json : undefined;
}
