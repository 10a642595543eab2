// What a real API server adds around the fields kube-proxy reads: uids, timestamps, labels,
// annotations and managedFields (server-side apply's field sets), so the proxy's caches hold what
// they hold in production. Deterministic: everything comes from a seeded generator.

/** mulberry32: a small seeded PRNG; same seed, same sequence. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  /** `n` characters of [a-z0-9], like the suffixes the API server and controllers generate. */
  suffix(n: number): string {
    const abc = 'bcdfghjklmnpqrstvwxz2456789';
    let s = '';
    for (let i = 0; i < n; i++) s += abc[this.int(abc.length)];
    return s;
  }
  uid(): string {
    const hex = (n: number) => Array.from({ length: n }, () => this.int(16).toString(16)).join('');
    return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  }
}

/** A fixed epoch, so generated timestamps do not depend on when the bench runs. */
const EPOCH_MS = Date.UTC(2025, 0, 1);

/** An RFC 3339 timestamp (seconds, as the API server writes them) up to `spreadDays` after the epoch. */
export function timestamp(rng: Rng, spreadDays = 300): string {
  return isoSeconds(new Date(EPOCH_MS + rng.int(spreadDays * 86_400) * 1000));
}

export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * The FieldsV1 set for `value`, as server-side apply records it: `f:<field>` per map key, `.` for a
 * map that exists, `k:{...}` per element of a list keyed by `keyOf` (ports, owner references), and
 * atomic lists (`atomic`) or scalars as empty sets.
 */
export function fieldsV1(value: Json, keyOf: (path: string, item: Json) => string | undefined, path = '', atomic: readonly string[] = []): Json {
  if (value === null || typeof value !== 'object' || atomic.includes(path)) return {};
  if (Array.isArray(value)) {
    const out: Record<string, Json> = { '.': {} };
    for (const item of value) {
      const k = keyOf(path, item);
      if (k !== undefined) out[`k:${k}`] = { '.': {}, ...(fieldsV1(item, keyOf, `${path}[]`, atomic) as object) };
    }
    return out;
  }
  // Top-level fields (f:metadata, f:spec) carry no '.' entry; nested maps do.
  const out: Record<string, Json> = path.includes('.') ? { '.': {} } : {};
  for (const [k, v] of Object.entries(value)) out[`f:${k}`] = fieldsV1(v, keyOf, path === '' ? k : `${path}.${k}`, atomic);
  return out;
}

/** The list keys server-side apply uses for the lists kube-proxy's objects carry. */
export function listKey(path: string, item: Json): string | undefined {
  const o = item as Record<string, Json>;
  if (path === 'spec.ports') return JSON.stringify({ port: o.port, protocol: o.protocol });
  if (path === 'metadata.ownerReferences') return JSON.stringify({ uid: o.uid });
  return undefined;
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Json;
  subresource?: string;
}

export function managedEntry(manager: string, apiVersion: string, time: string, fields: Json, subresource?: string): ManagedFieldsEntry {
  return { manager, operation: 'Update', apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: fields, ...(subresource ? { subresource } : {}) };
}

/** Labels a Helm chart puts on its objects. */
export function helmLabels(name: string, namespace: string, rng: Rng): Record<string, string> {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/instance': `${namespace}-${name}`,
    'app.kubernetes.io/part-of': namespace,
    'app.kubernetes.io/managed-by': 'Helm',
    'helm.sh/chart': `${name.split('-')[0]}-0.${rng.int(40)}.${rng.int(10)}`,
  };
}
