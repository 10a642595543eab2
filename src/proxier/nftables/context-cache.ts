// The family contexts of the last sync, kept while what they are built from stays the same. A
// context depends on the proxier's options (fixed for its life) and on three lists of the snapshot:
// the Node's IPs and podCIDRs and the Service CIDRs. A partial sync, once a second at most, then
// costs three list comparisons instead of building every family's context and its key again.
import type { ProxySnapshot } from '../../core/types';
import { buildContext, contextKey, type ContextInputs, type FamilyContext } from './context';
import type { NftFamily } from './desired';
import type { NftablesProxierOptions } from './options';

/** A family's context and its key (a different key than the state's means a full sync). */
export interface KeyedContext {
  ctx: FamilyContext;
  key: string;
}

/** The snapshot's lists a context is built from, copied: a snapshot changed in place is still seen. */
interface Source {
  ips: readonly string[];
  podCIDRs: readonly string[];
  serviceCIDRs: readonly string[];
}

function sameList(a: readonly string[], b: readonly string[] | undefined): boolean {
  const other = b ?? [];
  if (a.length !== other.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== other[i]) return false;
  return true;
}

/** What the proxier's options give every family's context (the proxier and a dry run build them alike). */
export function contextInputsOf(o: Pick<NftablesProxierOptions, 'masqueradeBit' | 'masqueradeAll' | 'localDetector' | 'nodePortAddresses'
  | 'nodeIPs' | 'serviceCIDRs' | 'affinitySetSize' | 'conntrackTCPLiberal'>): ContextInputs {
  const { masqueradeBit, masqueradeAll, localDetector, nodePortAddresses, nodeIPs, affinitySetSize, conntrackTCPLiberal } = o;
  return { masqueradeBit, masqueradeAll, localDetector, nodePortAddresses, nodeIPs, serviceCIDRs: o.serviceCIDRs ?? [], affinitySetSize, conntrackTCPLiberal };
}

export class ContextCache {
  private source: Source | null = null;
  private contexts: KeyedContext[] = [];

  private readonly inputs: ContextInputs;
  private readonly families: readonly NftFamily[];

  /** `inputs.serviceCIDRs`: the options' own, which the snapshot's are added to. Both are copied. */
  constructor(inputs: ContextInputs, families: readonly NftFamily[]) {
    this.inputs = structuredClone(inputs);
    this.families = [...families];
  }

  /** One context per family, in the families' order, as buildContext makes them for this snapshot. */
  get(snapshot: Pick<ProxySnapshot, 'node' | 'serviceCIDRs'>): readonly KeyedContext[] {
    const { node, serviceCIDRs } = snapshot;
    const s = this.source;
    if (s && sameList(s.ips, node.ips) && sameList(s.podCIDRs, node.podCIDRs) && sameList(s.serviceCIDRs, serviceCIDRs)) {
      return this.contexts;
    }
    const merged = [...new Set([...this.inputs.serviceCIDRs, ...(serviceCIDRs ?? [])])].sort();
    const inputs: ContextInputs = { ...this.inputs, serviceCIDRs: merged };
    const from = { ips: [...node.ips], podCIDRs: [...node.podCIDRs] };
    this.contexts = this.families.map((f) => {
      const ctx = buildContext(inputs, f, from);
      return { ctx, key: contextKey(ctx) };
    });
    this.source = { ...from, serviceCIDRs: [...(serviceCIDRs ?? [])] };
    return this.contexts;
  }
}
