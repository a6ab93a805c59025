/**
 * Applies sparse fields: without `fields` the object as it is; with them, `id` and the named fields the
 * object has (unknown names ignored). The result keeps the full type, as the contract allows required
 * properties to be absent when `fields` is sent.
 */
export function pickFields<T extends { id: string }>(object: T, fields: readonly string[] | undefined): T {
  if (!fields) return object;
  const picked: Record<string, unknown> = { id: object.id };
  for (const name of fields) {
    if (Object.hasOwn(object, name)) picked[name] = (object as Record<string, unknown>)[name];
  }
  return picked as T;
}
