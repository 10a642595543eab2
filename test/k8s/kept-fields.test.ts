// What the watchers keep of an object (src/k8s/kept-fields.ts) is everything the proxy reads: for a
// varied set of realistic objects, every reader's output from the kept object (decodeObject) equals
// its output from the whole object as client-node's deserialiser gave it before (same log lines too),
// and the rest (managedFields, other annotations and labels, status conditions) is gone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { SERVICE_NAME_LABEL, TRIGGER_TIME_ANNOTATION } from '../../src/core/endpoint-conversion';
import { nodeInfoFromNode } from '../../src/core/node-info';
import { ProxyState } from '../../src/core/proxy-state';
import { SOURCE_RANGES_ANNOTATION, servicePortsFromService } from '../../src/core/service-conversion';
import { parseEndpointSlice } from '../../src/core/endpoint-conversion';
import { nodeIneligibility } from '../../src/health/health-reasons';
import { memberDropper } from '../../src/k8s/drop-members';
import { ENDPOINT_SLICE, KEPT_ANNOTATIONS, KEPT_LABELS, NAMESPACE, NODE as NODE_KEEP, SERVICE, SERVICE_CIDR, UNREAD_MEMBERS } from '../../src/k8s/kept-fields';
import type { Keep } from '../../src/k8s/pick';
import { decodeObject, type ResourceTypes } from '../../src/k8s/resources';
import { DISABLED_NAMESPACE_LABEL } from '../../src/k8s/selectors';
import { ServiceCIDRSet } from '../../src/k8s/service-cidrs';
import { recordingLogger } from '../core/fixtures';
import { recordingLogger as fullLogger } from './helpers';
import { SERVICES, SLICES } from './kept-fields-cases';
import { realNamespace, realNode, realServiceCIDR } from './realistic-objects';

const MODEL_TYPE: Record<keyof ResourceTypes, string> = {
  services: 'V1Service', endpointSlices: 'V1EndpointSlice', nodes: 'V1Node', namespaces: 'V1Namespace', serviceCIDRs: 'V1ServiceCIDR',
};

/** The object off the wire, the old decoding (the whole object as client-node's models) and the new one. */
function both<K extends keyof ResourceTypes>(resource: K, obj: unknown): { wire: unknown; whole: ResourceTypes[K]; kept: ResourceTypes[K] } {
  const wire = JSON.parse(JSON.stringify(obj));
  const whole = ObjectSerializer.deserialize(JSON.parse(JSON.stringify(obj)), MODEL_TYPE[resource], '') as ResourceTypes[K];
  return { wire, whole, kept: decodeObject(resource, wire) };
}

/** Reader output and log lines, from one decoding. */
function read<T, R>(obj: T, reader: (o: T, log: ReturnType<typeof recordingLogger>) => R): { out: R; log: unknown[] } {
  const log = recordingLogger();
  return { out: reader(obj, log), log: log.lines };
}

/** Absent or without any key but `allowed`. */
function onlyKeys(map: Record<string, string> | undefined, allowed: string[], what: string): void {
  for (const k of Object.keys(map ?? {})) assert.ok(allowed.includes(k), `${what}: ${k} should not be kept`);
}

const FAMILIES = ['IPv4', 'IPv6'] as const;
const NODE = 'node-a';

describe('kept fields', () => {
  it('name the same annotations and labels as their readers', () => {
    assert.equal(KEPT_ANNOTATIONS.loadBalancerSourceRanges, SOURCE_RANGES_ANNOTATION);
    assert.equal(KEPT_ANNOTATIONS.lastChangeTriggerTime, TRIGGER_TIME_ANNOTATION);
    assert.equal(KEPT_LABELS.serviceName, SERVICE_NAME_LABEL);
    assert.equal(KEPT_LABELS.namespaceOptOut, DISABLED_NAMESPACE_LABEL);
  });

  it('Services: the ServicePorts and warnings from the kept object equal those from the whole one', () => {
    let ports = 0;
    for (const [what, obj] of SERVICES) {
      const { wire, whole, kept } = both('services', obj);
      const fromKept = read(kept, (s, log) => servicePortsFromService(s, FAMILIES, log));
      assert.deepEqual(fromKept, read(whole, (s, log) => servicePortsFromService(s, FAMILIES, log)), what);
      ports += fromKept.out.length;
      assert.equal(kept.metadata?.managedFields, undefined, what);
      assert.equal(kept.metadata?.labels, undefined, what);
      onlyKeys(kept.metadata?.annotations, [SOURCE_RANGES_ANNOTATION], what);
      assert.equal(kept.spec?.selector, undefined, what);
      assert.equal(kept.status?.conditions, undefined, what);
      assert.ok(Object.getPrototypeOf(kept) === Object.prototype, 'a plain object');
      const [before, after] = [JSON.stringify(wire).length, JSON.stringify(kept).length];
      assert.ok(after * 3 < before, `${what}: ${before} -> ${after} bytes`);
    }
    assert.ok(ports >= 15, `the cases yield ServicePorts (${ports})`);
  });

  it('EndpointSlices: the parsed slice and warnings from the kept object equal those from the whole one', () => {
    let endpoints = 0;
    for (const [what, obj] of SLICES) {
      const { wire, whole, kept } = both('endpointSlices', obj);
      const fromKept = read(kept, (s, log) => parseEndpointSlice(s, NODE, log));
      assert.deepEqual(fromKept, read(whole, (s, log) => parseEndpointSlice(s, NODE, log)), what);
      endpoints += fromKept.out?.endpoints.length ?? 0;
      assert.equal(kept.metadata?.managedFields, undefined, what);
      assert.equal(kept.metadata?.ownerReferences, undefined, what);
      onlyKeys(kept.metadata?.labels, [SERVICE_NAME_LABEL], what);
      onlyKeys(kept.metadata?.annotations, [TRIGGER_TIME_ANNOTATION], what);
      for (const ep of kept.endpoints ?? []) assert.equal(ep?.targetRef, undefined, what);
      const [before, after] = [JSON.stringify(wire).length, JSON.stringify(kept).length];
      assert.ok(after * 2 < before, `${what}: ${before} -> ${after} bytes`);
    }
    assert.ok(endpoints >= 12, `the cases yield endpoints (${endpoints})`);
  });

  it('Services and EndpointSlices together: the same snapshot through ProxyState', () => {
    const snap = (decoded: 'whole' | 'kept') => {
      const state = new ProxyState({ nodeName: NODE, ipFamilies: [...FAMILIES], log: recordingLogger(), startTime: new Date(0) });
      for (const [, o] of SERVICES) state.onService('add', both('services', o)[decoded]);
      for (const [, o] of SLICES) state.onEndpointSlice('add', both('endpointSlices', o)[decoded]);
      state.onNode(both('nodes', realNode(NODE, { zone: 'z1' }))[decoded]);
      const t = state.takeChanges();
      return { snapshot: t.snapshot, changes: t.changes, triggers: t.endpointTriggerTimes };
    };
    const kept = snap('kept');
    assert.deepEqual(kept, snap('whole'));
    assert.ok(kept.snapshot.services.size >= 15 && kept.snapshot.endpoints.size >= 5);
  });

  it('Nodes: NodeInfo and eligibility from the kept object equal those from the whole one', () => {
    const nodes = [
      realNode(NODE, { zone: 'z1', podCIDRs: ['10.244.1.0/24', 'fd00:10:244:1::/64'], addresses: [{ type: 'ExternalIP', address: '203.0.113.9' }, { type: 'InternalIP', address: '10.0.1.5' }, { type: 'InternalIP', address: 'fd00::5' }] }),
      realNode(NODE, { taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }, { key: 'ToBeDeletedByClusterAutoscaler', value: '1700000000', effect: 'NoSchedule' }] }),
      realNode(NODE, { deletionTimestamp: '2025-11-04T00:00:00Z', podCIDRs: ['10.244.2.0/24'] }),
      { metadata: { name: NODE, labels: null }, spec: { podCIDR: '10.244.3.0/24', taints: [null] }, status: { addresses: [null, { type: 'InternalIP' }] } },
    ];
    for (const obj of nodes) {
      const { wire, whole, kept } = both('nodes', obj);
      assert.deepEqual(nodeInfoFromNode(NODE, kept, FAMILIES), nodeInfoFromNode(NODE, whole, FAMILIES));
      assert.equal(nodeIneligibility(kept), nodeIneligibility(whole));
      assert.deepEqual(kept.metadata?.deletionTimestamp, whole.metadata?.deletionTimestamp, 'a Date, as the model type says');
      assert.equal(kept.metadata?.managedFields, undefined);
      assert.equal(kept.status?.images, undefined);
      assert.equal(kept.status?.conditions, undefined);
      if (JSON.stringify(wire).length > 5000) assert.ok(JSON.stringify(kept).length * 10 < JSON.stringify(wire).length);
    }
  });

  it('ServiceCIDRs and Namespaces keep what their readers use', () => {
    const cidrs = (c: ResourceTypes['serviceCIDRs']) => {
      const set = new ServiceCIDRSet(fullLogger());
      set.set(c);
      return set.cidrs();
    };
    const c = both('serviceCIDRs', realServiceCIDR('kubernetes', ['10.96.0.0/12', 'fd00:10:96::/112']));
    assert.deepEqual(cidrs(c.kept), cidrs(c.whole));
    assert.equal(c.kept.metadata?.name, 'kubernetes');
    assert.equal(c.kept.status, undefined);
    const n = both('namespaces', realNamespace('quiet', { [DISABLED_NAMESPACE_LABEL]: 'disabled', team: 'a' }));
    assert.deepEqual(n.kept, { metadata: { name: 'quiet', resourceVersion: '12', labels: { [DISABLED_NAMESPACE_LABEL]: 'disabled' } } });
  });

  it('refuses an object with a field of the wrong shape anywhere, also in a part it does not keep', () => {
    const [, svc] = SERVICES[0];
    const bad = JSON.parse(JSON.stringify(svc));
    bad.metadata.labels.version = 3;
    assert.throws(() => decodeObject('services', bad), { message: 'metadata.labels["version"]: expected a string, got a number' });
  });

  it('never keep a member named as unread (a list page loses those before it is parsed)', () => {
    const names = new Set<string>();
    const walk = (k: Keep): void => {
      if (k.as === 'list') walk(k.of);
      if (k.as === 'keys') k.keys.forEach((n) => names.add(n));
      if (k.as === 'object') for (const [n, f] of Object.entries(k.fields)) (names.add(n), walk(f));
    };
    for (const k of [SERVICE, ENDPOINT_SLICE, NODE_KEEP, NAMESPACE, SERVICE_CIDR]) walk(k);
    assert.ok(names.has('metadata') && names.has('addresses'));
    for (const n of UNREAD_MEMBERS) assert.ok(!names.has(n), n);
  });

  it('do not check the shape of the unread members: a list page and a watch event decode alike', () => {
    const [, slice] = SLICES.find(([, s]) => (s as { endpoints?: unknown[] }).endpoints?.length)!;
    const odd = JSON.parse(JSON.stringify(slice));
    odd.metadata.managedFields = [{ manager: 7, fieldsV1: 'x' }];
    odd.endpoints[0].targetRef = { kind: ['Pod'] };
    const asEvent = decodeObject('endpointSlices', odd);
    const page = Buffer.from(JSON.stringify({ items: [odd] }));
    const asListed = decodeObject('endpointSlices', (JSON.parse(page.toString('utf8', 0, memberDropper(UNREAD_MEMBERS)(page))) as { items: unknown[] }).items[0]);
    assert.deepEqual(asEvent, decodeObject('endpointSlices', JSON.parse(JSON.stringify(slice))));
    assert.deepEqual(asListed, asEvent);
  });
});
