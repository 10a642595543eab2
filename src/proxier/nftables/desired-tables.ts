// The whole desired state of our tables for one snapshot, family by family, as the proxier's full
// sync compiles it (the same contexts, the same ServicePorts in key order, the same refusals, the same
// endpoint maps in use), held at once: for a one-shot reader (`--dry-run`), not for the sync, which
// never holds every ServicePort's objects together (plan-full.ts).
import type { ProxySnapshot } from '../../core/types';
import { baseElements, compileBase } from './compile-base';
import { ServicePortError, compileService } from './compile-service';
import { ContextCache, contextInputsOf } from './context-cache';
import type { FamilyContext } from './context';
import type { BaseObjects, NftFamily, ServiceObjects } from './desired';
import { ElementIndex, claimAll } from './element-index';
import type { NftablesProxierOptions } from './options';
import { setsInUse } from './state';
import { BASE_OWNER } from './tx-writer';

export interface DesiredTable {
  family: NftFamily;
  /** What the family's table was compiled with (node IPs, NodePort addresses, detect-local, ...). */
  ctx: FamilyContext;
  base: BaseObjects;
  /** The family's ServicePorts, compiled, in key order. */
  services: ServiceObjects[];
}

export interface DesiredTables {
  /** One per family, in the options' order. */
  tables: DesiredTable[];
  /** ServicePort key -> why it cannot be programmed (left out, as the proxier leaves it out). */
  refused: Map<string, string>;
}

export type CompileOptions = Pick<NftablesProxierOptions, 'families' | 'masqueradeBit' | 'masqueradeAll' | 'localDetector'
  | 'nodePortAddresses' | 'nodeIPs' | 'serviceCIDRs' | 'affinitySetSize' | 'conntrackTCPLiberal'>;

/** The context of each family the options serve, for this snapshot (its node, its Service CIDRs), as the proxier builds them. */
export function familyContexts(o: CompileOptions, snapshot: ProxySnapshot): FamilyContext[] {
  return new ContextCache(contextInputsOf(o), o.families).get(snapshot).map(({ ctx }) => ctx);
}

export function compileDesiredTables(o: CompileOptions, snapshot: ProxySnapshot): DesiredTables {
  const contexts = familyContexts(o, snapshot).map((ctx) => ({ ctx }));
  const keys = [...snapshot.services.keys()].sort();
  const refused = new Map<string, string>();
  const tables = contexts.map(({ ctx }) => {
    const services: ServiceObjects[] = [];
    for (const key of keys) {
      const sp = snapshot.services.get(key)!;
      if ((sp.family === 'IPv6' ? 'ip6' : 'ip') !== ctx.family) continue;
      try {
        services.push(compileService(sp, snapshot.endpoints.get(key), ctx));
      } catch (e) {
        if (!(e instanceof ServicePortError)) throw e;
        refused.set(key, e.message);
      }
    }
    return { family: ctx.family, ctx, base: baseFor(ctx, services), services };
  });
  return { tables, refused };
}

/** The table without one ServicePort (one the transaction builder refused), its base following the endpoint maps still in use. */
export function leaveOut(t: DesiredTable, key: string): DesiredTable {
  const services = t.services.filter((s) => s.key !== key);
  return { ...t, services, base: baseFor(t.ctx, services) };
}

/** The base with the endpoint maps the claimed elements use, as planSteps compiles it after the ServicePorts. */
function baseFor(ctx: FamilyContext, services: readonly ServiceObjects[]): BaseObjects {
  const index = new ElementIndex();
  claimAll(index, BASE_OWNER, baseElements(ctx));
  for (const s of services) claimAll(index, s.key, s.elements);
  return compileBase(ctx, setsInUse(index.counts()));
}
