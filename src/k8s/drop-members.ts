// Removes object members by name from JSON held as bytes, before JSON.parse sees it. The members the
// proxy never reads (kept-fields.ts UNREAD_MEMBERS) are much of a list page: managedFields with their
// fieldsV1 trees, each endpoint's targetRef. Parsed, they are objects built only to be dropped, and
// their garbage is what the GC copies while a page is handled (docs/watching.md).
//
// A member is found by its bytes `"name":` right after `{` or `,`, and that is always a key: inside a
// JSON string every `"` is escaped (`\"`), so a `"` right after `{` or `,` opens a string, and a string
// followed by `:` is a key. Only object and list values are removed (the bulk); the value's end is found
// by matching brackets outside strings. Anything else (whitespace around the key, a value that is not
// an object or a list, brackets that never close or do not match, nesting past MAX_DEPTH) leaves the
// member where it is, for JSON.parse to read as before. Valid JSON stays valid JSON with the same
// other members; what a body that is not JSON turns into is not promised.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const MAX_DEPTH = 512;

/** The closers expected, innermost last: one stack, reused (JavaScript runs one call at a time). */
const closers = new Uint8Array(MAX_DEPTH);

/** Where the object or list opening at `start` ends (the index after its closer), or -1. */
function valueEnd(b: Uint8Array, start: number, end: number): number {
  let depth = 0;
  let i = start;
  while (i < end) {
    const c = b[i++];
    if (c === QUOTE) {
      for (;;) {
        if (i >= end) return -1;
        const d = b[i++];
        if (d === QUOTE) break;
        if (d === BACKSLASH) i++;
      }
    } else if (c === OPEN_LIST || c === OPEN_OBJECT) {
      if (depth === MAX_DEPTH) return -1;
      closers[depth++] = c === OPEN_LIST ? CLOSE_LIST : CLOSE_OBJECT;
    } else if (c === CLOSE_LIST || c === CLOSE_OBJECT) {
      if (depth === 0 || closers[--depth] !== c) return -1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * A function that removes every member named in `names` (an object or list value) from `body`, in
 * place, and returns the length of what is left: read `body` up to it.
 */
export function memberDropper(names: readonly string[]): (body: Buffer) => number {
  for (const n of names) if (!/^[A-Za-z0-9_.-]+$/.test(n)) throw new Error(`memberDropper: ${JSON.stringify(n)} is not a plain member name`);
  const patterns = names.map((n) => Buffer.from(`"${n}":`, 'latin1'));
  return (body) => dropMembers(body, patterns);
}

function dropMembers(b: Buffer, patterns: readonly Buffer[]): number {
  const len = b.length;
  const next = patterns.map((p) => b.indexOf(p));
  // Bytes before `write` are the result so far; bytes from `read` on are not looked at yet.
  let read = 0;
  let write = 0;
  for (;;) {
    let m = -1;
    for (let p = 0; p < next.length; p++) if (next[p] >= 0 && (m < 0 || next[p] < next[m])) m = p;
    if (m < 0) break;
    const at = next[m];
    const removed = at >= read ? removal(b, at, patterns[m].length, read, write, len) : undefined;
    if (removed) {
      b.copyWithin(write, read, removed.from);
      write += removed.from - read;
      read = removed.to;
    }
    const resume = removed ? read : at + 1;
    for (let p = 0; p < next.length; p++) if (next[p] >= 0 && next[p] < resume) next[p] = b.indexOf(patterns[p], resume);
  }
  b.copyWithin(write, read, len);
  return write + len - read;
}

/**
 * The bytes to remove for the key at `at`: with the comma before it, or, for an object's first member,
 * with the comma after it. A member right after one removed with its comma is now its object's first.
 */
function removal(b: Buffer, at: number, keyLength: number, read: number, write: number, len: number): { from: number; to: number } | undefined {
  const before = at > read ? b[at - 1] : write > 0 && b[write - 1] === OPEN_OBJECT ? OPEN_OBJECT : -1;
  if (before !== COMMA && before !== OPEN_OBJECT) return undefined;
  const start = at + keyLength;
  if (b[start] !== OPEN_LIST && b[start] !== OPEN_OBJECT) return undefined;
  const end = valueEnd(b, start, len);
  if (end < 0) return undefined;
  if (before === COMMA) return { from: at - 1, to: end };
  return { from: at, to: b[end] === COMMA ? end + 1 : end };
}
