// What the proxier's state is made of: counts of its parts, and the memory each part frees when it
// is dropped (fields of each family's state, set to empty one after another, with a full GC in
// between). Dropping is destructive: this runs last. It reads the proxier's private fields, so it
// follows the representation in src/proxier/nftables/state.ts.
import { collect } from './heap';

type AnyMap = Map<unknown, unknown>;
interface StateLike { [field: string]: unknown }

export interface StateCounts {
  [what: string]: number;
}

export interface Breakdown {
  counts: StateCounts;
  /** MiB freed when each field of every family's state is dropped, in this order. */
  freedMiB: [string, number][];
}

function statesOf(proxier: unknown): Map<string, StateLike> {
  const states = (proxier as { states?: unknown }).states;
  if (!(states instanceof Map)) throw new Error('the proxier has no `states` map: update bench/memory/state-breakdown.ts');
  return states as Map<string, StateLike>;
}

function add(c: StateCounts, what: string, n = 1): void {
  c[what] = (c[what] ?? 0) + n;
}

/** Counts what a state holds, by whatever fields it has (Maps by size, arrays by length). */
export function countState(proxier: unknown): StateCounts {
  const c: StateCounts = {};
  for (const state of statesOf(proxier).values()) {
    for (const [field, v] of Object.entries(state)) {
      if (v instanceof Map) add(c, `${field} entries`, v.size);
      else if (Array.isArray(v)) add(c, `${field} items`, v.length);
    }
    const mirror = state.mirror as { chains?: AnyMap; sets?: AnyMap } | undefined;
    if (mirror?.chains) add(c, 'mirror chains', mirror.chains.size);
    if (mirror?.sets) add(c, 'mirror sets', mirror.sets.size);
    countServices(c, state.services);
    countIndex(c, state.index);
  }
  return c;
}

function countServices(c: StateCounts, services: unknown): void {
  if (!(services instanceof Map)) return;
  for (const s of services.values() as Iterable<Record<string, unknown>>) {
    if (Array.isArray(s.elements)) add(c, 'service element refs', s.elements.length);
    if (Array.isArray(s.chains)) add(c, 'service chains', s.chains.length);
  }
}

/** The index (element-index.ts ElementIndex): entries, key text, entries with several claimants. */
function countIndex(c: StateCounts, index: unknown): void {
  const entries = (index as { entries?: () => Iterable<[string, string, unknown]> })?.entries;
  if (typeof entries !== 'function' || index instanceof Map) return;
  let keyChars = 0;
  let n = 0;
  const sets = new Set<string>();
  for (const [set, text, claimants] of entries.call(index)) {
    n++;
    keyChars += text.length;
    sets.add(set);
    if (typeof claimants !== 'string') add(c, 'index entries with several claimants', 1);
  }
  add(c, 'index entries', n);
  add(c, 'index key chars', keyChars);
  add(c, 'index sets', sets.size);
}

/** Drops each field of each family's state in turn (biggest suspects first), measuring what it freed. */
export function dropAndMeasure(proxier: unknown, order: string[]): [string, number][] {
  const states = statesOf(proxier);
  const heap = () => { collect(); return process.memoryUsage().heapUsed / 1024 / 1024; };
  const out: [string, number][] = [];
  let before = heap();
  const fields = [...order, ...new Set([...states.values()].flatMap((s) => Object.keys(s)))].filter((f, i, a) => a.indexOf(f) === i);
  for (const field of fields) {
    for (const s of states.values()) if (field in s) s[field] = null;
    const now = heap();
    out.push([field, before - now]);
    before = now;
  }
  return out;
}
