// Self size per constructor name from a V8 heap snapshot file, read as a stream: a snapshot of a
// large heap is bigger than the longest string V8 can hold, so it is never JSON.parse'd whole. Only
// the node array and the names it refers to are kept; edges are skipped.
import { createReadStream } from 'node:fs';

export interface HeapSummaryRow { name: string; selfBytes: number; count: number }
export type HeapSummary = Map<string, { selfBytes: number; count: number }>;

/** Node types summed per name (constructor names, array kinds, system types); the others per type. */
const BY_NAME = new Set(['object', 'native', 'hidden', 'array', 'synthetic', 'regexp']);
const NODES = Buffer.from('"nodes":[');
const STRINGS = Buffer.from('"strings":[');

interface Meta { fields: number; type: number; name: number; self: number; types: string[] }

function parseMeta(head: string): Meta {
  const at = head.indexOf('"nodes":[');
  const json = `${head.slice(0, at).trimEnd().replace(/,$/, '')}}`;
  const meta = (JSON.parse(json) as { snapshot?: { meta?: { node_fields?: string[]; node_types?: [string[]] } } }).snapshot?.meta;
  const f = meta?.node_fields;
  if (!f || !meta.node_types) throw new Error('not a V8 heap snapshot: its meta has no node_fields or node_types');
  const m = { fields: f.length, type: f.indexOf('type'), name: f.indexOf('name'), self: f.indexOf('self_size'), types: meta.node_types[0] };
  if (m.type < 0 || m.name < 0 || m.self < 0) throw new Error(`heap snapshot node_fields lack type, name or self_size: ${f.join(',')}`);
  return m;
}

/** Streams the snapshot: the meta, then per-node sums keyed by type and name index, then the names. */
class SnapshotReader {
  private state: 'head' | 'nodes' | 'skip' | 'strings' | 'done' = 'head';
  private head: Buffer[] = [];
  private meta?: Meta;
  private num = -1;
  private field = 0;
  private node: number[] = [];
  /** key = type * 2^32 + (name index or 0) -> sums. */
  readonly sums = new Map<number, { selfBytes: number; count: number }>();
  private readonly wanted = new Map<number, string | undefined>();
  private tail = Buffer.alloc(0);
  private strIndex = 0;
  private inStr = false;
  private escape = false;
  private keep = false;
  private collected: number[] = [];

  push(chunk: Buffer): void {
    let b = chunk;
    while (b.length > 0 && this.state !== 'done') b = this.step(b);
  }

  /** Consumes some of `b` in the current state; returns the rest. */
  private step(b: Buffer): Buffer {
    if (this.state === 'head') return this.readHead(b);
    if (this.state === 'nodes') return this.readNodes(b);
    if (this.state === 'skip') return this.skipToStrings(b);
    return this.readStrings(b);
  }

  private readHead(b: Buffer): Buffer {
    this.head.push(b);
    const all = Buffer.concat(this.head);
    const at = all.indexOf(NODES);
    if (at < 0) return Buffer.alloc(0);
    this.meta = parseMeta(all.subarray(0, at + NODES.length).toString('utf8'));
    this.node = new Array(this.meta.fields).fill(0);
    this.head = [];
    this.state = 'nodes';
    return all.subarray(at + NODES.length);
  }

  private readNodes(b: Buffer): Buffer {
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (c >= 48 && c <= 57) {
        this.num = (this.num < 0 ? 0 : this.num * 10) + (c - 48);
        continue;
      }
      if (this.num >= 0) this.value(this.num);
      this.num = -1;
      if (c === 93 /* ] */) {
        this.state = 'skip';
        return b.subarray(i + 1);
      }
    }
    return Buffer.alloc(0);
  }

  private value(v: number): void {
    const m = this.meta!;
    this.node[this.field++] = v;
    if (this.field < m.fields) return;
    this.field = 0;
    const type = this.node[m.type];
    const byName = BY_NAME.has(m.types[type]);
    const key = type * 2 ** 32 + (byName ? this.node[m.name] : 0);
    const s = this.sums.get(key) ?? { selfBytes: 0, count: 0 };
    s.selfBytes += this.node[m.self];
    s.count++;
    this.sums.set(key, s);
    if (byName) this.wanted.set(this.node[m.name], undefined);
  }

  private skipToStrings(b: Buffer): Buffer {
    const all = Buffer.concat([this.tail, b]);
    const at = all.indexOf(STRINGS);
    if (at < 0) {
      this.tail = all.subarray(Math.max(0, all.length - STRINGS.length));
      return Buffer.alloc(0);
    }
    this.state = 'strings';
    return all.subarray(at + STRINGS.length);
  }

  private readStrings(b: Buffer): Buffer {
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (!this.inStr) {
        if (c === 93 /* ] */) {
          this.state = 'done';
          return Buffer.alloc(0);
        }
        if (c === 34 /* " */) {
          this.inStr = true;
          this.keep = this.wanted.has(this.strIndex);
        }
        continue;
      }
      if (this.escape) this.escape = false;
      else if (c === 92 /* \ */) this.escape = true;
      else if (c === 34) {
        this.endString();
        continue;
      }
      if (this.keep) this.collected.push(c);
    }
    return Buffer.alloc(0);
  }

  private endString(): void {
    if (this.keep) this.wanted.set(this.strIndex, JSON.parse(`"${Buffer.from(this.collected).toString('utf8')}"`) as string);
    this.collected = [];
    this.strIndex++;
    this.inStr = false;
  }

  summary(): HeapSummary {
    if (this.state !== 'done') throw new Error(`heap snapshot ended early (while reading ${this.state})`);
    const out: HeapSummary = new Map();
    for (const [key, s] of this.sums) {
      const type = this.meta!.types[Math.floor(key / 2 ** 32)];
      const name = this.wanted.get(key % 2 ** 32) ?? '';
      const label = type === 'object' ? name : BY_NAME.has(type) ? `(${type}) ${name}` : `(${type})`;
      const row = out.get(label) ?? { selfBytes: 0, count: 0 };
      row.selfBytes += s.selfBytes;
      row.count += s.count;
      out.set(label, row);
    }
    return out;
  }
}

/** Self bytes and node count per constructor name (or per node type for strings, code, closures...). */
export function summarizeHeapSnapshot(file: string): Promise<HeapSummary> {
  return summarizeChunks(createReadStream(file, { highWaterMark: 1 << 20 }));
}

/** The same, from a snapshot's bytes in any chunking. */
export async function summarizeChunks(chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): Promise<HeapSummary> {
  const reader = new SnapshotReader();
  for await (const chunk of chunks) reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return reader.summary();
}

export function totalBytes(s: HeapSummary): number {
  let n = 0;
  for (const v of s.values()) n += v.selfBytes;
  return n;
}

/** The `top` names whose self size grew most from `before` to `after`. */
export function diffSummaries(before: HeapSummary, after: HeapSummary, top = 20): HeapSummaryRow[] {
  const rows: HeapSummaryRow[] = [];
  for (const [name, a] of after) {
    const b = before.get(name) ?? { selfBytes: 0, count: 0 };
    rows.push({ name, selfBytes: a.selfBytes - b.selfBytes, count: a.count - b.count });
  }
  return rows.sort((x, y) => y.selfBytes - x.selfBytes).slice(0, top);
}
