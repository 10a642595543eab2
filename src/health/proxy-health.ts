// The proxy's own health, as upstream's ProxyHealthServer computes it (pkg/proxy/healthcheck/proxy_health.go):
// unhealthy once an update has been queued for an IP family and none applied within healthTimeout;
// the node is ineligible while it is being deleted or tainted ToBeDeletedByClusterAutoscaler.
import type { V1Node } from '@kubernetes/client-node';

export const TO_BE_DELETED_TAINT = 'ToBeDeletedByClusterAutoscaler';

export type IPFamily = 'IPv4' | 'IPv6';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface ProxierHealth {
  lastUpdated: Date | undefined;
  healthy: boolean;
}

export interface HealthReport {
  healthy: boolean;
  currentTime: Date;
  /** Latest successful update of any family; undefined before the first. */
  lastUpdated: Date | undefined;
  status: Partial<Record<IPFamily, ProxierHealth>>;
}

export function nodeEligible(node: V1Node | undefined): boolean {
  if (!node) return false;
  if (node.metadata?.deletionTimestamp) return false;
  return !(node.spec?.taints ?? []).some((t) => t.key === TO_BE_DELETED_TAINT);
}

export class ProxyHealth {
  private readonly lastUpdated = new Map<IPFamily, Date>();
  private readonly oldestPending = new Map<IPFamily, Date>();
  /** Eligible while starting up, until a Node event says otherwise (as upstream before NodeManager). */
  private eligible = true;

  constructor(
    private readonly healthTimeoutMs: number,
    readonly clock: Clock = systemClock,
  ) {
    if (!(healthTimeoutMs > 0)) throw new Error(`healthTimeoutMs: must be > 0, got ${healthTimeoutMs}`);
  }

  /** A Service or EndpointSlice change reached the proxier for this family and awaits a sync. */
  queuedUpdate(family: IPFamily): void {
    if (!this.oldestPending.has(family)) this.oldestPending.set(family, this.clock.now());
  }

  /** The proxier for this family applied everything queued so far. */
  updated(family: IPFamily): void {
    this.oldestPending.delete(family);
    this.lastUpdated.set(family, this.clock.now());
  }

  /** Feed this node's Node object (undefined once deleted). */
  syncNode(node: V1Node | undefined): void {
    this.eligible = nodeEligible(node);
  }

  nodeEligible(): boolean {
    return this.eligible;
  }

  report(): HealthReport {
    const currentTime = this.clock.now();
    const status: Partial<Record<IPFamily, ProxierHealth>> = {};
    let healthy = true;
    let lastUpdated: Date | undefined;
    for (const [family, updated] of this.lastUpdated) {
      if (!lastUpdated || updated > lastUpdated) lastUpdated = updated;
      const pending = this.oldestPending.get(family);
      // Upstream only judges a family once it has synced at least once.
      const late = pending !== undefined && currentTime.getTime() - pending.getTime() >= this.healthTimeoutMs;
      if (late) healthy = false;
      status[family] = { lastUpdated: updated, healthy: !late };
    }
    return { healthy, currentTime, lastUpdated, status };
  }

  isHealthy(): boolean {
    return this.report().healthy;
  }
}
