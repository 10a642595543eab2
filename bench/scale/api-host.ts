// The test API server (test/apiserver) holding the scale bench's cluster, and the changes the bench
// makes through it: one endpoint of one Service, a Service (with its slice) added or deleted.
import { TestApiServer } from '../../test/apiserver/server';
import { generateCluster, mixOf, nextServiceObjects, NODE_NAME, type ClusterMix, type KObject, type ScaleCluster, type ScaleSpec } from './cluster-objects';
import { nodeObject, serviceCIDRObject } from './node-objects';
import { addEndpoint, flipReadiness, removeEndpoint, replaceEndpoint } from './slice-objects';

interface LiveService { namespace: string; service: string; slice: string }

/**
 * What the bench does to one EndpointSlice: a pod replaced (`replace-ready`: a ready one, the count
 * of ready endpoints kept), a readiness flipped, a ready endpoint removed or a new one added.
 */
export type EndpointChange = 'replace' | 'replace-ready' | 'flip' | 'remove' | 'add';

const SLICE_CHANGES: Record<EndpointChange, (c: ScaleCluster, slice: KObject) => KObject> = {
  replace: (c, s) => replaceEndpoint(c, s), 'replace-ready': (c, s) => replaceEndpoint(c, s, new Date(), true),
  flip: (c, s) => flipReadiness(c, s), remove: (c, s) => removeEndpoint(c, s), add: (c, s) => addEndpoint(c, s),
};

export class ScaleApiHost {
  private readonly live = new Map<number, LiveService>();
  /** The keys of `live`, for a uniform pick (swap-remove on delete). */
  private readonly indices: number[] = [];

  private constructor(
    readonly api: TestApiServer,
    readonly cluster: ScaleCluster,
    /** What the initial cluster holds. */
    readonly mix: ClusterMix,
    /** JSON bytes of the initial Services and EndpointSlices, as the store holds them. */
    readonly objectBytes: number,
  ) {}

  /** Starts a test API server on 127.0.0.1 (of the current network namespace) holding the cluster. */
  static async start(spec: ScaleSpec): Promise<ScaleApiHost> {
    const { cluster, services, slices } = generateCluster(spec);
    // Watch history for reconnects only; a watch that falls behind relists, as against a real server.
    const api = new TestApiServer({ historyLimit: 10_000 });
    const host = new ScaleApiHost(api, cluster, mixOf(services, slices, NODE_NAME), 0);
    api.create('nodes', nodeObject());
    api.create('servicecidrs', serviceCIDRObject());
    let bytes = 0;
    for (let i = 0; i < services.length; i++) bytes += host.add(i, services[i], slices[i]);
    (host as { objectBytes: number }).objectBytes = bytes;
    await api.start();
    return host;
  }

  get liveServices(): number {
    return this.indices.length;
  }

  /** The Service indexes that exist now. */
  liveIndices(): number[] {
    return [...this.indices];
  }

  /** A Service index that exists now, drawn from the cluster's seeded generator. */
  pickLive(): number {
    if (this.indices.length === 0) throw new Error('no Services left');
    return this.indices[this.cluster.rng.int(this.indices.length)];
  }

  /**
   * Replaces one pod (or, with `flip`, toggles one endpoint's readiness; see EndpointChange for the
   * others) in Service `index`'s slice.
   * Returns how many ServicePorts that changes (the Service's ports: the slice serves them all).
   */
  changeEndpoint(index = this.pickLive(), kind: EndpointChange = 'replace'): number {
    const l = this.live.get(index);
    if (!l) throw new Error(`Service ${index} does not exist`);
    const old = this.api.store.get('endpointslices', l.namespace, l.slice);
    if (!old) throw new Error(`EndpointSlice ${l.namespace}/${l.slice} is missing from the store`);
    this.api.update('endpointslices', SLICE_CHANGES[kind](this.cluster, old));
    return this.cluster.plans.get(index)!.ports.length;
  }

  /** A new Service with its slice (the next one the generator draws); returns its index. */
  addService(): number {
    const o = nextServiceObjects(this.cluster);
    this.add(o.plan.index, o.service, o.slice);
    return o.plan.index;
  }

  /** Deletes Service `index` and its slice, as the API server and the EndpointSlice controller would. */
  deleteService(index = this.pickLive()): void {
    const l = this.live.get(index);
    if (!l) throw new Error(`Service ${index} does not exist`);
    this.api.delete('endpointslices', { metadata: { namespace: l.namespace, name: l.slice } });
    this.api.delete('services', { metadata: { namespace: l.namespace, name: l.service } });
    this.live.delete(index);
    const at = this.indices.indexOf(index);
    this.indices[at] = this.indices[this.indices.length - 1];
    this.indices.pop();
  }

  stop(): Promise<void> {
    return this.api.stop();
  }

  /** Stores a Service and its slice; returns their JSON bytes as stored. */
  private add(index: number, service: KObject, slice: KObject): number {
    const s = this.api.create('services', service);
    const e = this.api.create('endpointslices', slice);
    this.live.set(index, { namespace: s.metadata!.namespace!, service: s.metadata!.name!, slice: e.metadata!.name! });
    this.indices.push(index);
    return JSON.stringify(s).length + JSON.stringify(e).length;
  }
}
