// The proxy's own health, as upstream's ProxyHealthServer computes it (pkg/proxy/healthcheck/proxy_health.go):
// unhealthy once an update has been queued for an IP family and none applied within healthTimeout;
// the node is ineligible while it is being deleted or tainted ToBeDeletedByClusterAutoscaler.
// /healthz (healthzReport) adds two checks of ours, with a reason for each failure: no sync has
// succeeded within healthTimeout of start, and an API resource has had no current view for healthTimeout.
import type { V1Node } from '@kubernetes/client-node';
import { systemClock, type Clock } from '../base/clock';
import type { IPFamily } from '../base/ip-family';
import { nodeIneligibility, queuedUpdateReason, type StaleResource, staleReasons, startupReason } from './health-reasons';

export { TO_BE_DELETED_TAINT } from './health-reasons';
export type { StaleResource } from './health-reasons';

/** ProxyHealth reads only the wall clock: its times are reported (lastUpdated, currentTime). */
export type WallClock = Pick<Clock, 'wall'>;

export interface ProxierHealth {
  lastUpdated: Date | undefined;
  healthy: boolean;
}

/** Upstream's proxier health (what /livez and the health-check node ports judge by). */
export interface HealthReport {
  healthy: boolean;
  currentTime: Date;
  /** Latest successful update of any family; undefined before the first. */
  lastUpdated: Date | undefined;
  status: Partial<Record<IPFamily, ProxierHealth>>;
  /** Why healthy is false; empty when it is true. */
  reasons: string[];
}

/** What /healthz answers: the proxier's health, the Node's eligibility and our two checks. */
export interface HealthzReport extends HealthReport {
  nodeEligible: boolean;
  /** 200 when true, 503 otherwise. */
  ok: boolean;
  /** Every reason ok is false (the proxier's first); empty when it is true. */
  reasons: string[];
}

export interface HealthInputs {
  /** Resources the API watchers have no current view of, and since when. */
  staleResources?: () => readonly StaleResource[];
}

export function nodeEligible(node: V1Node | undefined): boolean {
  return nodeIneligibility(node) === undefined;
}

export class ProxyHealth {
  private readonly lastUpdated = new Map<IPFamily, Date>();
  private readonly oldestPending = new Map<IPFamily, Date>();
  /** Eligible while starting up, until a Node event says otherwise (as upstream before NodeManager). */
  private ineligibility: string | undefined;
  private readonly startedAt: Date;

  constructor(
    private readonly healthTimeoutMs: number,
    readonly clock: WallClock = systemClock,
    private readonly inputs: HealthInputs = {},
  ) {
    if (!(healthTimeoutMs > 0)) throw new Error(`healthTimeoutMs: must be > 0, got ${healthTimeoutMs}`);
    this.startedAt = clock.wall();
  }

  /** A Service or EndpointSlice change reached the proxier for this family and awaits a sync. */
  queuedUpdate(family: IPFamily): void {
    if (!this.oldestPending.has(family)) this.oldestPending.set(family, this.clock.wall());
  }

  /** The proxier for this family applied everything queued so far. */
  updated(family: IPFamily): void {
    this.oldestPending.delete(family);
    this.lastUpdated.set(family, this.clock.wall());
  }

  /** Feed this node's Node object (undefined once deleted). */
  syncNode(node: V1Node | undefined): void {
    this.ineligibility = nodeIneligibility(node);
  }

  nodeEligible(): boolean {
    return this.ineligibility === undefined;
  }

  report(): HealthReport {
    const currentTime = this.clock.wall();
    const status: Partial<Record<IPFamily, ProxierHealth>> = {};
    const reasons: string[] = [];
    let lastUpdated: Date | undefined;
    for (const [family, updated] of this.lastUpdated) {
      if (!lastUpdated || updated > lastUpdated) lastUpdated = updated;
      const pending = this.oldestPending.get(family);
      // Upstream only judges a family once it has synced at least once.
      const late = pending !== undefined && currentTime.getTime() - pending.getTime() >= this.healthTimeoutMs;
      if (late) reasons.push(queuedUpdateReason(family, pending, currentTime, this.healthTimeoutMs));
      status[family] = { lastUpdated: updated, healthy: !late };
    }
    return { healthy: reasons.length === 0, currentTime, lastUpdated, status, reasons };
  }

  healthzReport(): HealthzReport {
    const r = this.report();
    const reasons = [...r.reasons];
    if (this.ineligibility) reasons.push(this.ineligibility);
    const startup = startupReason(this.startedAt, r.lastUpdated, r.currentTime, this.healthTimeoutMs);
    if (startup) reasons.push(startup);
    reasons.push(...staleReasons(this.inputs.staleResources?.() ?? [], r.currentTime, this.healthTimeoutMs));
    return { ...r, nodeEligible: this.nodeEligible(), ok: reasons.length === 0, reasons };
  }

  isHealthy(): boolean {
    return this.report().healthy;
  }
}
