// The scale bench's cluster generator: counts, determinism, the mix, unique addresses, the metadata
// bulk, the changes it makes, and that the real model (ProxyState) takes every object it generates.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { ProxyState } from '../../src/core';
import { generateCluster, mixOf, NODE_NAME, type KObject } from '../../bench/scale/cluster-objects';
import { fieldsV1, listKey } from '../../bench/scale/object-bulk';
import { flipReadiness, replaceEndpoint } from '../../bench/scale/slice-objects';

const N = 2000;
const { cluster, services, slices } = generateCluster({ services: N, seed: 11 });
const mix = mixOf(services, slices, NODE_NAME);
const share = (n: number) => n / N;

describe('scale bench cluster generator', () => {
  it('makes N Services with one slice each, 6 ready endpoints, some with a terminating one', () => {
    assert.equal(services.length, N);
    assert.equal(slices.length, N);
    assert.equal(mix.readyEndpoints, 6 * N);
    for (const s of slices) {
      const ready = s.endpoints.filter((e: KObject) => e.conditions.ready).length;
      assert.equal(ready, 6, `${s.metadata.name} has ${ready} ready endpoints`);
      assert.ok(s.endpoints.length === 6 || s.endpoints.length === 7);
    }
    assert.ok(share(mix.terminatingEndpoints) > 0.06 && share(mix.terminatingEndpoints) < 0.14, `terminating share ${share(mix.terminatingEndpoints)}`);
  });

  it('is deterministic: the same seed gives the same bytes, another seed other objects', () => {
    const again = generateCluster({ services: N, seed: 11 });
    assert.equal(JSON.stringify(again.services), JSON.stringify(services));
    assert.equal(JSON.stringify(again.slices), JSON.stringify(slices));
    const other = generateCluster({ services: 50, seed: 12 });
    assert.notEqual(JSON.stringify(other.slices), JSON.stringify(slices.slice(0, 50)));
  });

  it('draws the mix a large cluster has', () => {
    const within = (what: string, v: number, lo: number, hi: number) => assert.ok(v >= lo && v <= hi, `${what}: ${v} not in [${lo}, ${hi}]`);
    assert.equal(mix.clusterIP + mix.nodePort + mix.loadBalancer, N);
    within('ClusterIP share', share(mix.clusterIP), 0.76, 0.84);
    within('NodePort share', share(mix.nodePort), 0.09, 0.15);
    within('LoadBalancer share', share(mix.loadBalancer), 0.06, 0.1);
    within('multi-port share', share(mix.multiPort), 0.22, 0.34);
    within('ClientIP affinity share', share(mix.sessionAffinity), 0.03, 0.07);
    within('eTP Local among external Services', mix.externalLocal / (mix.nodePort + mix.loadBalancer), 0.22, 0.38);
    within('topology hints share', share(mix.topologyHints), 0.07, 0.13);
    assert.ok(mix.udpPorts > 0 && mix.internalLocal > 0 && mix.localEndpoints > 0, JSON.stringify(mix));
    const lb = services.filter((s) => s.spec.type === 'LoadBalancer');
    assert.ok(lb.every((s) => /^172\.16\./.test(s.status.loadBalancer.ingress[0].ip)));
    assert.equal(mix.healthCheckNodePorts, lb.filter((s) => s.spec.externalTrafficPolicy === 'Local').length);
  });

  it('gives every Service, pod and NodePort its own address or port', () => {
    const unique = (what: string, xs: unknown[]) => assert.equal(new Set(xs).size, xs.length, `${what} repeat`);
    unique('cluster IPs', services.map((s) => s.spec.clusterIP));
    unique('pod IPs', slices.flatMap((s) => s.endpoints.map((e: KObject) => e.addresses[0])));
    const ports = services.flatMap((s) => [...s.spec.ports.map((p: KObject) => p.nodePort).filter(Boolean), ...(s.spec.healthCheckNodePort ? [s.spec.healthCheckNodePort] : [])]);
    unique('node ports', ports);
    assert.ok(ports.every((p) => p >= 30000 && p < 50000));
    unique('Service names', services.map((s) => `${s.metadata.namespace}/${s.metadata.name}`));
  });

  it('carries the bulk a real API server sends, and slices that belong to their Service', () => {
    for (let i = 0; i < N; i += 97) {
      const s = services[i];
      const e = slices[i];
      assert.match(s.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-4/);
      assert.match(s.metadata.creationTimestamp, /^2025-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.ok(Object.keys(s.metadata.labels).length >= 4 && Object.keys(s.metadata.annotations).length >= 2);
      assert.ok(s.metadata.managedFields[0].fieldsV1['f:spec']['f:ports']);
      assert.equal(e.metadata.labels['kubernetes.io/service-name'], s.metadata.name);
      assert.equal(e.metadata.ownerReferences[0].uid, s.metadata.uid);
      assert.ok(e.metadata.managedFields[0].fieldsV1['f:metadata']['f:ownerReferences'][`k:{"uid":"${s.metadata.uid}"}`]);
      assert.deepEqual(e.ports.map((p: KObject) => p.port), s.spec.ports.map((p: KObject) => p.targetPort));
      const hinted = e.endpoints.some((ep: KObject) => ep.hints);
      assert.equal(hinted, s.metadata.annotations['service.kubernetes.io/topology-mode'] === 'Auto');
      assert.ok(e.endpoints.every((ep: KObject) => ep.targetRef.kind === 'Pod' && ep.zone && ep.nodeName));
    }
  });

  it('records managedFields as server-side apply does', () => {
    const fields = fieldsV1({ metadata: { labels: { a: '1' } }, spec: { ports: [{ port: 80, protocol: 'TCP' }], selector: { x: 'y' } } }, listKey, '', ['spec.selector']);
    assert.deepEqual(fields, {
      'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
      'f:spec': { 'f:ports': { '.': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} } }, 'f:selector': {} },
    });
  });

  it('replaces one pod, or flips one endpoint, and leaves the rest of the slice as it was', () => {
    const slice = slices[3];
    const now = new Date('2026-01-01T00:00:00.000Z');
    const next = replaceEndpoint(cluster, slice, now);
    const changed = next.endpoints.filter((e: KObject, i: number) => JSON.stringify(e) !== JSON.stringify(slice.endpoints[i]));
    assert.equal(changed.length, 1);
    assert.ok(!slices.some((s) => s.endpoints.some((e: KObject) => e.addresses[0] === changed[0].addresses[0])), 'the new pod IP is new');
    assert.equal(next.metadata.generation, slice.metadata.generation + 1);
    assert.equal(next.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time'], now.toISOString());
    assert.equal(slices[3], slice, 'the old object is not modified');
    const flipped = flipReadiness(cluster, next, now);
    assert.equal(flipped.endpoints.filter((e: KObject) => e.conditions.ready).length, 5);
  });

  it('makes objects the real model takes whole, decoded as the watcher decodes them: every ServicePort, with its endpoints', () => {
    const decode = <T>(o: KObject, type: string): T => ObjectSerializer.deserialize(JSON.parse(JSON.stringify(o)), type, '') as T;
    const state = new ProxyState({ nodeName: NODE_NAME, ipFamilies: ['IPv4'], log: { warn: (o, m) => assert.fail(`model warned: ${m} ${JSON.stringify(o)}`) } });
    for (const s of services) state.onService('add', decode<V1Service>(s, 'V1Service'));
    for (const s of slices) state.onEndpointSlice('add', decode<V1EndpointSlice>(s, 'V1EndpointSlice'));
    const { snapshot } = state.takeChanges();
    assert.equal(snapshot.services.size, mix.servicePorts);
    const selected = [...snapshot.endpoints.values()];
    assert.ok(selected.every((e) => e.hasAny), 'every ServicePort has a usable endpoint');
    // A ClusterIP Service with internalTrafficPolicy Local never uses its Cluster set (upstream's CategorizeEndpoints).
    const localOnly = services.filter((s) => s.spec.type === 'ClusterIP' && s.spec.internalTrafficPolicy === 'Local').reduce((n, s) => n + s.spec.ports.length, 0);
    assert.equal(selected.filter((e) => e.cluster.length === 6).length, mix.servicePorts - localOnly);
    assert.equal(selected.filter((e) => e.cluster.length === 0).length, localOnly);
  });
});
