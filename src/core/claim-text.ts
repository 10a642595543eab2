// Refused address claims in words (core/address-ownership): for the proxy's log and events and for
// `explain`, so both say the same thing the same way.
import type { RefusedClaim } from './address-ownership';

export interface ServiceRef {
  namespace: string;
  name: string;
}

export const CLAIM_WORDS: Record<RefusedClaim['claimantKind'], string> = {
  clusterIP: 'ClusterIP',
  externalIP: 'externalIP',
  loadBalancerIP: 'LoadBalancer ingress IP',
  nodePort: 'NodePort',
};

/** `namespace/name` and port name of a ServicePort key (`namespace/name:portName/protocol/family`). */
export function serviceOfKey(key: string): ServiceRef & { portName: string } {
  const slash = key.indexOf('/');
  const colon = key.indexOf(':', slash);
  const portEnd = key.indexOf('/', colon);
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1, colon), portName: key.slice(colon + 1, portEnd) };
}

/** The key a claim is on, as people write it: `10.96.0.1:80/TCP`, `[fd00::1]:80/TCP`, `NodePort 30080/TCP (IPv4)`. */
export function claimKeyText(c: Pick<RefusedClaim, 'address' | 'port' | 'protocol' | 'family'>): string {
  if (c.address === '') return `NodePort ${c.port}/${c.protocol} (${c.family})`;
  return `${c.address.includes(':') ? `[${c.address}]` : c.address}:${c.port}/${c.protocol}`;
}

/** One sentence for the log and the event. */
export function refusalMessage(c: RefusedClaim): string {
  const owner = serviceOfKey(c.owner);
  return `${CLAIM_WORDS[c.claimantKind]} ${claimKeyText(c)} is already the ${CLAIM_WORDS[c.ownerKind]} of Service `
    + `${owner.namespace}/${owner.name}; this Service's claim is refused (${c.reason}). Its other addresses are served.`;
}

