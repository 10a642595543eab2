// Arrays the model keeps for as long as a Service lives. An array built by push() or spread has
// room to grow (V8 grows a backing store by half plus 16 slots), so a kept list of one to six items
// costs ~150 bytes where its items need ~50; at 44k Services that is tens of MB (docs/memory.md).

/** The same items in an array with no spare capacity, for lists the model keeps. */
export function keptList<T>(items: Iterable<T>): T[] {
  const a = Array.isArray(items) ? items : [...items];
  return a.slice();
}
