// Which table each object lives in. The kernel re-validates a whole table (every chain reachable
// from its base chains) whenever a transaction adds a jump, goto, DNAT or verdict-map element to
// it, so a partial sync costs in proportion to the table it touches. Spreading the per-Service
// chains over K shard tables keeps that table small: a Service change validates N/K Services.
// With K = 1 everything stays in `kube-proxy`, exactly upstream's layout.
import { createHash } from 'node:crypto';
import { TABLE } from './names';

export const SHARD_PREFIX = `${TABLE}-svc-`;
export const MAX_SHARDS = 256;
const SHARD_RE = /^kube-proxy-svc-\d{2,3}$/;

export interface Layout {
  /** Number of shard tables; 1 = the single-table layout. */
  shards: number;
}

export const SINGLE: Layout = { shards: 1 };

export function shardTableName(i: number): string {
  return SHARD_PREFIX + String(i).padStart(2, '0');
}

/** The table holding shard i's Services. */
export function shardTable(layout: Layout, i: number): string {
  return layout.shards === 1 ? TABLE : shardTableName(i);
}

/** Every table of the layout: the main one first, then the shards. */
export function tablesOf(layout: Layout): string[] {
  if (layout.shards === 1) return [TABLE];
  return [TABLE, ...Array.from({ length: layout.shards }, (_, i) => shardTableName(i))];
}

/** Tables any layout of ours may have created (start-up adoption, --cleanup). */
export function isOurTable(name: string): boolean {
  return name === TABLE || SHARD_RE.test(name);
}

/**
 * The shard of a Service: all its ports together, the same on every restart (a hash of
 * namespace/name, not of anything that depends on the process).
 */
export function shardOf(layout: Layout, namespace: string, name: string): number {
  if (layout.shards === 1) return 0;
  const h = createHash('sha256').update(`${namespace}/${name}`).digest();
  return h.readUInt32BE(0) % layout.shards;
}

/** Qualified object name, unique across the tables of one family. */
export function qual(table: string, name: string): string {
  return `${table}\u0000${name}`;
}

export function unqual(q: string): { table: string; name: string } {
  const i = q.indexOf('\u0000');
  return { table: q.slice(0, i), name: q.slice(i + 1) };
}
