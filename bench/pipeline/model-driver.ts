// Feeds the synthetic cluster to a proxier as snapshots + change sets. Two drivers:
//   - the real model (src/core ProxyState, fed V1Service/V1EndpointSlice objects), used when it exists;
//   - snapshots built here from the core's types, so the proxier and kernel can be measured before it does.
import type { ChangeSet, Endpoint, NodeInfo, ProxySnapshot, SelectedEndpoints, ServicePort } from '../../src/core/types';
import { servicePortKey } from '../../src/core/keys';
import { SynthService } from '../shapes/cluster';
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { ProxyState } from '../../src/core/proxy-state';
import { BENCH_NODE, serviceObject, sliceObject } from './k8s-objects';

export interface ModelDriver {
  readonly kind: string;
  /** Adds or replaces a Service and its endpoints. */
  upsert(s: SynthService): void;
  /** What the proxier gets for the next sync, and the changes since the previous take(). */
  take(): { snapshot: ProxySnapshot; changes: ChangeSet };
}

export const BENCH_NODE_INFO: NodeInfo = { name: BENCH_NODE, labels: {}, ips: ['192.168.0.10'], podCIDRs: ['10.128.0.0/24'] };

function servicePort(s: SynthService): ServicePort {
  return {
    key: servicePortKey(s.namespace, s.name, 'http', 'TCP', 'IPv4'),
    namespace: s.namespace, name: s.name, portName: 'http', protocol: 'TCP', family: 'IPv4',
    clusterIP: s.clusterIP, port: s.port, nodePort: s.nodePort,
    externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [],
    affinityTimeoutSeconds: 0, externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0,
  };
}

function selected(s: SynthService): SelectedEndpoints {
  const eps: Endpoint[] = s.endpoints.map((e, i) => ({
    ip: e.ip, port: e.port, ready: true, serving: true, terminating: false, isLocal: false, nodeName: `node-${(s.index + i) % 500}`,
  }));
  return { cluster: eps, local: [], allReachable: eps, hasAny: true };
}

export class SnapshotDriver implements ModelDriver {
  readonly kind = 'ProxySnapshot built by the bench (src/core ProxyState not used)';
  private readonly services = new Map<string, ServicePort>();
  private readonly endpoints = new Map<string, SelectedEndpoints>();
  private changed = new Set<string>();
  private removed = new Map<string, Endpoint[]>();

  upsert(s: SynthService): void {
    const sp = servicePort(s);
    const old = this.endpoints.get(sp.key);
    const next = selected(s);
    if (old) {
      const keep = new Set(next.allReachable.map((e) => `${e.ip}:${e.port}`));
      const gone = old.allReachable.filter((e) => !keep.has(`${e.ip}:${e.port}`));
      if (gone.length) this.removed.set(sp.key, gone);
    }
    this.services.set(sp.key, sp);
    this.endpoints.set(sp.key, next);
    this.changed.add(sp.key);
  }

  take(): { snapshot: ProxySnapshot; changes: ChangeSet } {
    const changes: ChangeSet = { services: this.changed, removedEndpoints: this.removed, newlyActive: new Set(), removedServices: new Map() };
    this.changed = new Set();
    this.removed = new Map();
    return { snapshot: { services: new Map(this.services), endpoints: new Map(this.endpoints), node: BENCH_NODE_INFO }, changes };
  }
}

/** The real model: V1 objects in, ProxyState's snapshot and change set out. */
export class ProxyStateDriver implements ModelDriver {
  readonly kind = 'src/core ProxyState fed V1Service/V1EndpointSlice objects';
  private readonly seen = new Set<number>();
  private generation = new Map<number, number>();

  constructor(private readonly state: {
    onService(kind: 'add' | 'update', svc: V1Service): boolean;
    onEndpointSlice(kind: 'add' | 'update', slice: V1EndpointSlice): boolean;
    takeChanges(): { snapshot: ProxySnapshot; changes: ChangeSet };
  }) {}

  upsert(s: SynthService): void {
    const kind = this.seen.has(s.index) ? 'update' : 'add';
    const gen = (this.generation.get(s.index) ?? -1) + 1;
    this.generation.set(s.index, gen);
    this.seen.add(s.index);
    this.state.onService(kind, serviceObject(s));
    this.state.onEndpointSlice(kind, sliceObject(s, gen));
  }

  take(): { snapshot: ProxySnapshot; changes: ChangeSet } {
    const { snapshot, changes } = this.state.takeChanges();
    return { snapshot, changes };
  }
}

export function proxyStateDriver(): ProxyStateDriver {
  const warnings: string[] = [];
  const state = new ProxyState({
    nodeName: BENCH_NODE,
    ipFamilies: ['IPv4'],
    log: { warn: (obj, msg) => { if (warnings.push(`${obj.kind} ${obj.namespace}/${obj.name}: ${msg}`) <= 5) process.stderr.write(`bench model warning: ${warnings.at(-1)}\n`); } },
    startTime: new Date(0),
  });
  return new ProxyStateDriver(state);
}
