// For `explain` (nftables mode): everything explain says about one ServicePort, assembled from the
// mode-independent endpoint reasons (src/core/endpoint-reasons.ts) and this mode's addresses,
// policies and paths (explain-path.ts); `kernel` holds the kernel objects' check (explain-kernel.ts) when it ran.
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { explainEndpoints, type EndpointsExplanation } from '../../core/endpoint-reasons';
import type { NodeTopology } from '../../core/endpoint-selection';
import type { RefusedClaim } from '../../core/address-ownership';
import { CLAIM_WORDS, claimKeyText, serviceOfKey } from '../../core/claim-text';
import type { ServicePort } from '../../core/types';
import type { FamilyContext } from './context';
import { explainPath, type PathExplanation } from './explain-path';
import type { KernelObjectCheck } from './explain-kernel';

export type { KernelObjectCheck };

/** Everything explain knows about one ServicePort; `kernel` is filled by the kernel check. */
export interface ServicePortExplanation {
  sp: ServicePort;
  endpoints: EndpointsExplanation;
  path: PathExplanation;
  kernel?: KernelObjectCheck[];
  /** Keys this ServicePort and another both claim (core/address-ownership); absent when none. */
  claims?: ClaimExplanation[];
}

/**
 * One key two ServicePorts claim, seen from this one: `lost` (the other owns it, this one's claim is
 * refused and nothing of it is programmed) or `owns` (the other's claim is refused).
 */
export interface ClaimExplanation {
  role: 'lost' | 'owns';
  /** This ServicePort's claim and the other's: ClusterIP, externalIP, LoadBalancer ingress IP, NodePort. */
  claim: string;
  otherClaim: string;
  key: string;
  /** The other ServicePort's key. */
  other: string;
  reason: string;
}

/** The claims `refused` (every refusal in force) that concern `sp`. */
export function claimsOf(sp: Pick<ServicePort, 'key'>, refused: readonly RefusedClaim[]): ClaimExplanation[] {
  const out: ClaimExplanation[] = [];
  for (const c of refused) {
    if (c.claimant === sp.key) {
      out.push({ role: 'lost', claim: CLAIM_WORDS[c.claimantKind], otherClaim: CLAIM_WORDS[c.ownerKind], key: claimKeyText(c), other: c.owner, reason: c.reason });
    } else if (c.owner === sp.key) {
      out.push({ role: 'owns', claim: CLAIM_WORDS[c.ownerKind], otherClaim: CLAIM_WORDS[c.claimantKind], key: claimKeyText(c), other: c.claimant, reason: c.reason });
    }
  }
  return out;
}

/** One line for people. */
export function claimText(c: ClaimExplanation): string {
  const other = serviceOfKey(c.other);
  const who = `${other.namespace}/${other.name}${other.portName ? ` (port ${other.portName})` : ''}`;
  return c.role === 'lost'
    ? `${c.claim} ${c.key}: REFUSED, owned by ${who} as its ${c.otherClaim} (${c.reason}); not programmed for this Service`
    : `${c.claim} ${c.key}: owned; also claimed by ${who} as its ${c.otherClaim}, refused (${c.reason})`;
}

export interface ServicePortInputs {
  sp: ServicePort;
  /** The Service's EndpointSlices as the API server lists them (other Services' are ignored). */
  slices: readonly V1EndpointSlice[];
  /** This node's name and `topology.kubernetes.io/zone` label ('' when none). */
  node: NodeTopology;
  /** The context of the ServicePort's family, built as the proxy builds it (buildContext). */
  ctx: FamilyContext;
  /** This node's addresses, when known (NodePort addresses, external IPs that are local). */
  localAddresses?: readonly string[];
}

/** The endpoints and their reasons, then the paths over exactly that selection. */
export function explainServicePort(inputs: ServicePortInputs): ServicePortExplanation {
  const endpoints = explainEndpoints(inputs.sp, inputs.slices, inputs.node);
  const path = explainPath({ sp: inputs.sp, selection: endpoints.selection, ctx: inputs.ctx, localAddresses: inputs.localAddresses });
  return { sp: inputs.sp, endpoints, path };
}
