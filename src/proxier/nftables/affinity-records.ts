// Session-affinity records (client . destination -> endpoint) are written by the packet path
// (compile-base.ts recordAffinityChain) and name an endpoint. When a destination loses that endpoint,
// or its affinity, a record naming it would send a returning client where the destination no longer
// goes: right after the commit that removed the pair, the records naming it are deleted. The pair
// sets stop new records at once (the record rule looks the pair up), so only records older than
// the commit can be stale, and a dump after it sees them all.
import type { KeyPart } from '../../native';
import { parseIp } from '../../native/wire/addresses';
import { tryDecodeValue } from '../../native/txn/element-decode';
import { protoNumber } from '../../native/txn/elements';
import { mapData } from '../../native/txn/set-spec';
import { baseSetsByName } from './compile-base';
import type { ElementDef, NftFamily, SetDef } from './desired';
import { TABLE, affinityRecordsName, parseAffinitySetName, type EndpointMapFamily } from './names';
import type { ProxierLog } from './options';
import type { FamilyState } from './state';
import { BASE_OWNER, TxWriter } from './tx-writer';

/** Pairs of one endpoint map family that a sync removed, and those it added (a timeout change moves a pair). */
export interface PairChanges {
  removed: ElementDef[];
  added: ElementDef[];
}

/** The pair changes among a transaction's element ops: those of the affinity endpoint sets. */
export function pairChangesOf(dels: readonly ElementDef[], adds: readonly ElementDef[]): Map<EndpointMapFamily, PairChanges> {
  const out = new Map<EndpointMapFamily, PairChanges>();
  const put = (els: readonly ElementDef[], which: keyof PairChanges) => {
    for (const el of els) {
      const a = parseAffinitySetName(el.set);
      if (!a || a.timeoutSeconds === 0) continue;
      let c = out.get(a.fam);
      if (!c) out.set(a.fam, c = { removed: [], added: [] });
      c[which].push(el);
    }
  };
  put(dels, 'removed');
  put(adds, 'added');
  return out;
}

const hex = (bytes: ArrayLike<number>): string => Buffer.from(Array.from(bytes)).toString('hex');

/** A destination . endpoint pair as bytes, whatever way its addresses were written. Null for a malformed one. */
export function pairId(parts: readonly KeyPart[]): string | null {
  const out: string[] = [];
  for (const p of parts) {
    if (typeof p === 'number') out.push(p.toString(16));
    else if (p === 'tcp' || p === 'udp' || p === 'sctp') out.push(protoNumber(p, 'pair').toString(16));
    else {
      try {
        out.push(hex(parseIp(p, 'pair').bytes));
      } catch {
        return null;
      }
    }
  }
  return out.join('.');
}

/** A record as the kernel lists it: its key as parts (to delete it by), and the pair it names. */
export interface RecordPair { key: KeyPart[]; pair: string }

/**
 * Reads a record of the records map `spec` (key client . destination, value endpoint address . port).
 * Null when the bytes do not hold the map's types.
 */
export function readRecord(spec: SetDef, key: Buffer, data: Buffer | undefined): RecordPair | null {
  const parts = tryDecodeValue(spec.key, key);
  const value = data && tryDecodeValue(mapData(spec) ?? [], data);
  const pair = parts && value ? pairId([...parts.slice(1), ...value]) : null;
  return pair === null ? null : { key: parts!, pair };
}

/** What deleting stale records needs of the kernel. */
export interface RecordsKernel {
  dumpSet(family: NftFamily, table: string, set: string): Promise<{ elements: { key: Buffer; data?: Buffer }[] }>;
  commit(tx: TxWriter['tx']): Promise<unknown>;
}

/** Which records are stale: those naming a pair a partial sync removed, or (after a full sync) any pair the pair sets lack. */
type Check = ((pair: string) => boolean) | 'unwanted';

/**
 * The checks the commits since the last deletion call for, per family and endpoint map family. A
 * failed deletion keeps its check for the next sync; the sync itself stands.
 */
export class StaleRecords {
  private readonly checks = new Map<NftFamily, Map<EndpointMapFamily, Check>>();

  add(f: NftFamily, fam: EndpointMapFamily, check: Check): void {
    let byFam = this.checks.get(f);
    if (!byFam) this.checks.set(f, byFam = new Map());
    const before = byFam.get(fam);
    if (!before || before === 'unwanted' || check === 'unwanted') byFam.set(fam, before === 'unwanted' ? before : check);
    else byFam.set(fam, (pair) => before(pair) || check(pair));
  }

  /** A full sync wrote every pair: any record naming another is stale. */
  afterFullSync(s: FamilyState): void {
    this.checks.delete(s.family);
    for (const fam of pairSetsByFamily(s).keys()) this.add(s.family, fam, 'unwanted');
  }

  /**
   * Deletes the stale records. A record may expire between the listing and the delete (ENOENT):
   * the listing is read again, once.
   */
  async delete(states: ReadonlyMap<NftFamily, FamilyState>, kernel: RecordsKernel, log: ProxierLog): Promise<void> {
    for (const [f, byFam] of this.checks) {
      const state = states.get(f);
      for (const [fam, check] of byFam) {
        const set = affinityRecordsName(fam);
        if (!state || !baseSetsByName(state.base).has(set)) { byFam.delete(fam); continue; }
        try {
          const deleted = await deleteOnce(kernel, state, fam, check, log).catch((e) => {
            if ((e as { code?: string }).code !== 'ENOENT') throw e;
            return deleteOnce(kernel, state, fam, check, log);
          });
          byFam.delete(fam);
          if (deleted > 0) log.info({ family: f, set, deleted }, 'Deleted session-affinity records naming endpoints their destinations no longer have');
        } catch (e) {
          log.error({ err: e instanceof Error ? e : new Error(String(e)), family: f, set }, 'Could not delete stale session-affinity records; trying again at the next sync');
        }
      }
      if (byFam.size === 0) this.checks.delete(f);
    }
  }
}

async function deleteOnce(kernel: RecordsKernel, state: FamilyState, fam: EndpointMapFamily, check: Check, log: ProxierLog): Promise<number> {
  const f = state.family;
  const pairSets = (pairSetsByFamily(state).get(fam) ?? []).map((name) => baseSetsByName(state.base).get(name)!);
  const stale = check === 'unwanted' ? await unwantedPairs(kernel, f, pairSets) : check;
  const { elements, unreadable } = await staleRecords(kernel, f, baseSetsByName(state.base).get(affinityRecordsName(fam))!, stale);
  if (unreadable > 0) log.warn({ family: f, set: affinityRecordsName(fam), unreadable }, 'Affinity records of an unexpected shape left alone');
  if (elements.length === 0) return 0;
  const w = new TxWriter({ small: true });
  w.existingSets(f, baseSetsByName(state.base));
  w.deleteElements(f, elements[0].set, elements, BASE_OWNER);
  await kernel.commit(w.tx);
  return elements.length;
}

/** The pair sets of each endpoint map family with affinity in the state's base. */
function pairSetsByFamily(s: FamilyState): Map<EndpointMapFamily, string[]> {
  const out = new Map<EndpointMapFamily, string[]>();
  for (const set of s.base.sets) {
    const a = parseAffinitySetName(set.name);
    if (!a) continue;
    const names = out.get(a.fam) ?? out.set(a.fam, []).get(a.fam)!;
    if (a.timeoutSeconds > 0) names.push(set.name);
  }
  return out;
}

/**
 * The records of `fam` to delete: those naming a pair `stale` says is stale. Records the kernel
 * lists in a shape ours never have are left alone (counted in `unreadable`).
 */
export async function staleRecords(kernel: RecordsKernel, family: NftFamily, records: SetDef,
  stale: (pair: string) => boolean): Promise<{ elements: ElementDef[]; unreadable: number }> {
  const dumped = await kernel.dumpSet(family, TABLE, records.name);
  const elements: ElementDef[] = [];
  let unreadable = 0;
  for (const e of dumped.elements) {
    const r = readRecord(records, e.key, e.data);
    if (!r) unreadable++;
    else if (stale(r.pair)) elements.push({ set: records.name, key: r.key });
  }
  return { elements, unreadable };
}

/** After a partial sync: a pair is stale if the sync removed it and did not add it back (under another timeout). */
export function removedPairs(c: PairChanges): (pair: string) => boolean {
  const added = new Set(c.added.map((e) => pairId(e.key)));
  const removed = new Set(c.removed.map((e) => pairId(e.key)).filter((id): id is string => id !== null && !added.has(id)));
  return (pair) => removed.has(pair);
}

/** The id readRecord gives a pair, of an element of the pair set `spec`; null when the bytes do not hold its key. */
export function readPair(spec: SetDef, key: Buffer): string | null {
  const parts = tryDecodeValue(spec.key, key);
  return parts ? pairId(parts) : null;
}

/** After a full sync: a pair is stale unless the kernel's pair sets of its family hold it. */
export async function unwantedPairs(kernel: RecordsKernel, family: NftFamily, pairSets: readonly SetDef[]): Promise<(pair: string) => boolean> {
  const ids = new Set<string>();
  for (const set of pairSets) {
    for (const e of (await kernel.dumpSet(family, TABLE, set.name)).elements) {
      const id = readPair(set, e.key);
      if (id !== null) ids.add(id);
    }
  }
  return (pair) => !ids.has(pair);
}
