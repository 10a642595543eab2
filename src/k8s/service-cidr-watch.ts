// The watch of `networking.k8s.io/v1` ServiceCIDRs for ClusterWatcher: the ranges are delivered whole
// once the first list is in, then on each change that alters them; the first list ending either way
// is reported, since the first sync waits for it. An API server without the API (404) stops the watch
// for good; one that forbids it (403) is said once and retried. Either way the proxy runs without.
import type { V1ServiceCIDR } from '@kubernetes/client-node';
import type { Log } from '../base/log';
import { Reflector, type ReflectorStatus, type SharedReflectorOptions } from './reflector';
import type { ResourceClient } from './resources';
import { ServiceCIDRSet } from './service-cidrs';

export interface ServiceCIDRWatchOptions {
  client: ResourceClient<V1ServiceCIDR>;
  shared: SharedReflectorOptions & { log: Log };
  /** The current ranges (sorted, unique), whenever they differ from the last delivered. */
  deliver(cidrs: string[]): void;
  /** The first list has ended, in success or failure (told at least once, maybe more). */
  firstListEnded(): void;
}

export class ServiceCIDRWatch {
  readonly reflector: Reflector<V1ServiceCIDR>;
  private readonly ranges: ServiceCIDRSet;
  /** The first list is in: from now on every change is delivered. */
  private listed = false;
  private delivered?: string;
  private forbiddenWarned = false;
  private readonly log: Log;

  constructor(private readonly o: ServiceCIDRWatchOptions) {
    this.log = o.shared.log;
    this.ranges = new ServiceCIDRSet(this.log);
    this.reflector = new Reflector<V1ServiceCIDR>({
      ...o.shared,
      client: o.client,
      stopWhenNotServed: true,
      // Said once, with the reason, by onStatus.
      quietErrorCodes: [403],
      onStatus: (s) => this.onStatus(s),
      handler: {
        add: (c) => this.set(c),
        update: (c) => this.set(c),
        delete: (c) => {
          this.ranges.delete(c);
          if (this.listed) this.deliver();
        },
        synced: () => {
          this.listed = true;
          this.deliver();
          o.firstListEnded();
        },
      },
    });
  }

  start(): void {
    this.reflector.start();
  }

  stop(): void {
    this.reflector.stop();
  }

  private set(c: V1ServiceCIDR): void {
    this.ranges.set(c);
    // The first list is delivered whole when it is in, not object by object.
    if (this.listed) this.deliver();
  }

  private deliver(): void {
    const cidrs = this.ranges.cidrs();
    const key = cidrs.join(',');
    if (key === this.delivered) return;
    this.delivered = key;
    this.log.info({ serviceCIDRs: cidrs }, 'Service CIDRs updated');
    this.o.deliver(cidrs);
  }

  /**
   * 404: the API server has no networking.k8s.io/v1 ServiceCIDR API (before Kubernetes 1.33): said
   * once, and the Reflector has stopped for good. 403: RBAC lacks it; said once, retried with backoff
   * like any failure.
   */
  private onStatus(s: ReflectorStatus): void {
    if (s.notServed) {
      this.log.info({ resource: 'servicecidrs', err: s.lastError },
        'the API server does not serve networking.k8s.io/v1 ServiceCIDRs; not watching them (traffic to unallocated ClusterIPs is not dropped)');
      this.o.firstListEnded();
      // Not watched at all: no connection metric for it.
      return;
    }
    this.o.shared.onStatus?.(s);
    if (s.failures > 0) this.o.firstListEnded();
    if (s.connected) this.forbiddenWarned = false;
    if (s.lastErrorCode === 403 && !s.connected && !this.forbiddenWarned) {
      this.forbiddenWarned = true;
      this.log.warn({ resource: 'servicecidrs', err: s.lastError },
        'not allowed to list ServiceCIDRs (RBAC): traffic to unallocated ClusterIPs is not dropped until get/list/watch on servicecidrs.networking.k8s.io is granted; retrying with backoff');
    }
  }
}
