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
