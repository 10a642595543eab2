// `explain`'s facts about a Service's health-check node port, from what explain has: the listing
// (every Service the proxy handles, with its healthCheckNodePort and age) and the configuration (the
// proxy's own healthz and metrics addresses). The running proxy's binds are its own: explain says
// what it could not check rather than guess (a listening socket on the port is the proxy's own
// health check when all is well, so seeing one proves nothing).
import type { KubeProxyConfiguration } from '../config';
import { splitHostPort } from '../config/net';
import type { ServicePort } from '../core/types';
import { type HealthCheckClaim, healthCheckPortLosses } from '../health';
import { isWildcardHost } from '../http/listen';
import type { HealthCheckConflict, HealthCheckNodePortFacts } from '../proxier/nftables';

type ProxyPorts = Pick<KubeProxyConfiguration, 'healthzBindAddress' | 'metricsBindAddress'>;

const NOT_CHECKED = [
  'whether the running proxy holds the port (it logs "failed to start healthcheck" and records the Warning event FailedToStartServiceHealthcheck on the Service when it cannot)',
  'other programs on this node listening on the port',
];

/** Undefined when the Service has no health-check node port (not a LoadBalancer with externalTrafficPolicy Local). */
export function healthCheckFacts(service: string, services: Iterable<ServicePort>, config: ProxyPorts): HealthCheckNodePortFacts | undefined {
  const claims = new Map<string, HealthCheckClaim>();
  for (const sp of services) {
    if (!sp.externalPolicyLocal || sp.healthCheckNodePort === 0) continue;
    claims.set(`${sp.namespace}/${sp.name}`, { port: sp.healthCheckNodePort, created: sp.created, uid: sp.uid });
  }
  const own = claims.get(service);
  if (!own) return undefined;
  const conflicts: HealthCheckConflict[] = [];
  for (const [kind, setting] of [['healthz', 'healthzBindAddress'], ['metrics', 'metricsBindAddress']] as const) {
    const c = proxyServerConflict(kind, setting, config[setting], own.port);
    if (c) conflicts.push(c);
  }
  conflicts.push(...serviceConflicts(service, own.port, claims));
  return {
    port: own.port,
    conflicts,
    checked: [
      `this proxy's healthz and metrics ports (healthzBindAddress ${config.healthzBindAddress || '(empty: disabled)'}, metricsBindAddress ${config.metricsBindAddress || '(empty: disabled)'})`,
      `the healthCheckNodePort of every other Service this proxy handles (${claims.size - 1} with one)`,
    ],
    notChecked: NOT_CHECKED,
  };
}

function proxyServerConflict(kind: 'healthz' | 'metrics', setting: string, address: string, port: number): HealthCheckConflict | undefined {
  const hp = address === '' ? null : splitHostPort(address);
  if (!hp || Number(hp.port) !== port) return undefined;
  const where = isWildcardHost(hp.host)
    ? 'on every address: the health check cannot be bound'
    : `on ${hp.host}: the health check cannot be bound on that address, nor on every address (its default, with nodePortAddresses unset)`;
  return { kind, with: address, owner: `${kind} server`, note: `this proxy's ${kind} server (${setting} ${address}) listens on port ${port} ${where}` };
}

/** The other Services given the same port, and which one the running proxy serves (health-check-port-owner.ts). */
function serviceConflicts(service: string, port: number, claims: ReadonlyMap<string, HealthCheckClaim>): HealthCheckConflict[] {
  const sharing = new Map([...claims].filter(([, c]) => c.port === port));
  if (sharing.size < 2) return [];
  const losses = healthCheckPortLosses(sharing);
  const mine = losses.get(service);
  return [...sharing.keys()].filter((other) => other !== service).sort().map((other): HealthCheckConflict => {
    const outcome = mine
      ? `the proxy serves ${mine.owner}'s health check on it (${mine.rule}), not this Service's`
      : `the proxy serves this Service's health check on it (${losses.get(other)!.rule}), not ${other}'s`;
    return { kind: 'Service', with: other, owner: mine?.owner ?? service, note: `Service ${other} has the same healthCheckNodePort ${port}: ${outcome}` };
  });
}
