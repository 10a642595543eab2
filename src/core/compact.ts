// Arrays the model keeps for as long as a Service lives. An array built by push(), filter() or
// spread has room to grow (V8 grows a backing store by half plus 16 slots), so a kept list of one
// to six items costs ~150 bytes where its items need ~50; at 44k Services that is tens of MB
// (docs/memory.md). Lists the model hands on are replaced, never mutated, so they may be shared.

/** The one empty list the model hands on (frozen: a caller that tried to fill it would throw). */
export const EMPTY: readonly never[] = Object.freeze([]);

/** The same items in an array with no spare capacity, for lists the model keeps. */
export function keptList<T>(items: Iterable<T>): T[] {
  const a = Array.isArray(items) ? items : [...items];
  return a.slice();
}

/**
 * The items that pass `keep`: `items` itself when every one does (the common case, which then
 * costs nothing), EMPTY when none does, else an exactly sized list.
 */
export function keptFilter<T>(items: readonly T[], keep: (item: T) => boolean): readonly T[] {
  const out = items.filter(keep);
  if (out.length === items.length) return items;
  return out.length === 0 ? EMPTY : out.slice();
}

/**
 * What a tracker keeps per Service: the keys of its ServicePorts, its slices. Most Services have one
 * port and one slice, and a lone item kept as itself saves the array around it (~56 bytes: the
 * array and its backing store). The items are never arrays, so the two forms cannot be confused.
 */
export type OneOrMore<T> = T | readonly T[];

/** `items` as kept: the lone item itself, else an exactly sized list; undefined when empty. */
export function keptOneOrMore<T>(items: Iterable<T>): OneOrMore<T> | undefined {
  const a = keptList(items);
  return a.length === 0 ? undefined : a.length === 1 ? a[0] : a;
}

/** The items of a kept OneOrMore (none when absent). */
export function itemsOf<T>(kept: OneOrMore<T> | undefined): readonly T[] {
  if (kept === undefined) return EMPTY;
  return Array.isArray(kept) ? (kept as readonly T[]) : [kept as T];
}

/** `map[key] = value`, or no entry when the value is absent. */
export function setOrDelete<K, V>(map: Map<K, V>, key: K, value: V | undefined): void {
  if (value === undefined) map.delete(key);
  else map.set(key, value);
}

/**
 * One kept copy per distinct value, found by an id: values that repeat across a cluster (node and
 * zone names, hint lists, slices' port lists), which JSON.parse would otherwise give each object its
 * own copy of. Cleared, not grown, past `max`: the bound holds whatever the API server sends, and a
 * clear only makes later copies separate again.
 */
export class SharedTable<V> {
  private readonly byId = new Map<string, V>();

  constructor(private readonly max: number) {}

  /** The copy kept for `id`, if any. */
  find(id: string): V | undefined {
    return this.byId.get(id);
  }

  /** Keeps `value` as the copy for `id` and returns it. */
  keep(id: string, value: V): V {
    if (this.byId.size >= this.max) this.byId.clear();
    this.byId.set(id, value);
    return value;
  }
}
