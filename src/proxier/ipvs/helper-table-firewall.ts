// firewall-allow is written per (LB IP, proto, port), not per ServicePort: the ranges every
// claimant allows, folded (an interval set refuses overlapping elements, so two ServicePorts of
// one LB address with nested ranges must not each write theirs). ServicePorts claim their ranges
// as `firewall-sources` elements (never written); this turns the claimed sources into elements.
import type { KeyPart } from '../../native/txn/elements';
import { outermost, parseRange } from './helper-table-cidr';
import type { ElementDef } from './helper-table-elements';
import { SET, type HelperFamily } from './helper-table-names';

/** The claims-only set a ServicePort's allowed ranges go to. */
export const FIREWALL_SOURCES = 'firewall-sources';

type Triple = string;
const tripleOf = (d: ElementDef): Triple => `${d.family} ${d.key.slice(0, 3).join(' ')}`;

export interface FirewallChange { added: ElementDef[]; deleted: ElementDef[]; apply(): void }

export class FirewallAllow {
  /** Claimed sources per triple (range texts), and what the kernel holds per triple. */
  private sources = new Map<Triple, Set<string>>();
  private written = new Map<Triple, ElementDef[]>();

  /** What the kernel must change when these sources gain their first / lose their last claimant. */
  change(gained: readonly ElementDef[], lost: readonly ElementDef[]): FirewallChange {
    const staged = new Map<Triple, { head: ElementDef; ranges: Set<string> }>();
    const touch = (d: ElementDef) => {
      const t = tripleOf(d);
      let s = staged.get(t);
      if (!s) staged.set(t, (s = { head: d, ranges: new Set(this.sources.get(t) ?? []) }));
      return s;
    };
    for (const d of lost) touch(d).ranges.delete(String(d.key[3]));
    for (const d of gained) touch(d).ranges.add(String(d.key[3]));
    const added: ElementDef[] = [];
    const deleted: ElementDef[] = [];
    const next = new Map<Triple, ElementDef[]>();
    for (const [t, s] of staged) {
      const want = folded(s.head.family, s.head.key.slice(0, 3), s.ranges);
      const have = this.written.get(t) ?? [];
      const key = (d: ElementDef) => String(d.key[3]);
      const wantKeys = new Set(want.map(key));
      const haveKeys = new Set(have.map(key));
      deleted.push(...have.filter((d) => !wantKeys.has(key(d))));
      added.push(...want.filter((d) => !haveKeys.has(key(d))));
      next.set(t, want);
    }
    const apply = () => {
      for (const [t, s] of staged) {
        if (s.ranges.size === 0) { this.sources.delete(t); this.written.delete(t); continue; }
        this.sources.set(t, s.ranges);
        this.written.set(t, next.get(t)!);
      }
    };
    return { added, deleted, apply };
  }
}

function folded(family: HelperFamily, vip: KeyPart[], ranges: ReadonlySet<string>): ElementDef[] {
  const version = family === 'ip' ? 4 : 6;
  const parsed = [...ranges].map((r) => parseRange(r, version)).filter((r) => r !== null);
  return outermost(parsed).map((r) => ({ family, set: SET.firewallAllow, key: [...vip, r.text] }));
}

/** Splits claims-level elements into the kernel's and the firewall sources. */
export function splitSources(defs: readonly ElementDef[]): { kernel: ElementDef[]; sources: ElementDef[] } {
  const kernel: ElementDef[] = [];
  const sources: ElementDef[] = [];
  for (const d of defs) (d.set === FIREWALL_SOURCES ? sources : kernel).push(d);
  return { kernel, sources };
}
