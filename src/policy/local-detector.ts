// Detect-local modes (upstream's LocalTrafficDetector): how a rule tells traffic from this node's
// pods apart from everything else. Mode-independent (it only builds rule matches), so every mode
// that writes nftables rules takes it from here. Resolved per IP family: a CIDR mode without a CIDR of that
// family detects nothing, exactly as upstream.
import type { RuleBuilder } from '../native';

/** The per-family table families a detector is resolved for. */
type NftFamily = 'ip' | 'ip6';

export type LocalDetectorOptions =
  | { mode: 'None' }
  | { mode: 'ClusterCIDR'; cidrs: string[] }
  /** `cidrs` empty: use the Node's podCIDRs from the snapshot. */
  | { mode: 'NodeCIDR'; cidrs: string[] }
  | { mode: 'BridgeInterface'; interface: string }
  | { mode: 'InterfaceNamePrefix'; prefix: string };

/** One family's resolved detector: the match that means "from a local pod", or none. */
export type ResolvedDetector =
  | { kind: 'none' }
  | { kind: 'cidr'; cidr: string }
  | { kind: 'iifname'; name: string }
  | { kind: 'iifnamePrefix'; prefix: string };

export function cidrFamily(cidr: string): NftFamily {
  return cidr.includes(':') ? 'ip6' : 'ip';
}

export function resolveDetector(opts: LocalDetectorOptions, family: NftFamily, nodePodCIDRs: readonly string[]): ResolvedDetector {
  switch (opts.mode) {
    case 'None': return { kind: 'none' };
    case 'ClusterCIDR':
    case 'NodeCIDR': {
      const list = opts.mode === 'NodeCIDR' && opts.cidrs.length === 0 ? nodePodCIDRs : opts.cidrs;
      const cidr = list.find((c) => cidrFamily(c) === family);
      return cidr ? { kind: 'cidr', cidr } : { kind: 'none' };
    }
    case 'BridgeInterface': return { kind: 'iifname', name: opts.interface };
    case 'InterfaceNamePrefix': return { kind: 'iifnamePrefix', prefix: opts.prefix };
  }
}

/** Adds one match to a rule being built. */
export type Match = (b: RuleBuilder) => RuleBuilder;

/** The match for "from a local pod" (negate: "not from a local pod"); null when undetectable. */
export function localMatch(d: ResolvedDetector, negate: boolean): Match | null {
  switch (d.kind) {
    case 'none': return null;
    case 'cidr': return (b) => b.saddr(d.cidr, negate);
    case 'iifname': return (b) => b.iifname(d.name, negate);
    case 'iifnamePrefix': return (b) => b.iifnamePrefix(d.prefix, negate);
  }
}

export function detectorKey(d: ResolvedDetector): string {
  return JSON.stringify(d);
}
