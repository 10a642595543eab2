// For `explain` (nftables mode): everything explain says about one ServicePort, assembled from the
// mode-independent endpoint reasons (src/core/endpoint-reasons.ts) and this mode's addresses,
// policies and paths (explain-path.ts); `kernel` holds the kernel objects' check (explain-kernel.ts) when it ran.
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { explainEndpoints, type EndpointsExplanation } from '../../core/endpoint-reasons';
import type { NodeTopology } from '../../core/endpoint-selection';
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
