// Guards for API objects whose shape the types promise but the wire does not: client-node's
// deserializer passes through nulls, strings where lists belong and other types than declared,
// and one such field must cost only that field, never the event or the sync.

/** The value when it is a list, else an empty one. */
export function listOf<T>(value: T[] | null | undefined | unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

/** A list field that is present but not a list (worth a warning). */
export function notAList(value: unknown): boolean {
  return value !== undefined && value !== null && !Array.isArray(value);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringsOf(value: unknown): string[] {
  return listOf<unknown>(value).filter((v): v is string => typeof v === 'string');
}
