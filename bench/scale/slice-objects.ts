// EndpointSlices of the scale bench's Services, as the EndpointSlice controller writes them (owner
// reference, copied labels, trigger-time annotation, managedFields, targetRefs, zones, hints), and
// the changes the bench makes to them: one pod replaced, or one endpoint's readiness flipped.
import { intToIp4 } from '../lib/cluster';
import { fieldsV1, isoSeconds, listKey, managedEntry, timestamp } from './object-bulk';
import { ZONES, type KObject, type ScaleCluster, type ServicePlan } from './cluster-state';

const MANAGED_BY = 'endpointslice-controller.k8s.io';
const TRIGGER = 'endpoints.kubernetes.io/last-change-trigger-time';

function newEndpoint(c: ScaleCluster, plan: Pick<ServicePlan, 'name' | 'namespace' | 'topologyHints'>, terminating = false): KObject {
  const { rng } = c;
  const node = rng.int(c.spec.nodes);
  const zone = ZONES[node % ZONES.length];
  const ep: KObject = {
    addresses: [intToIp4(c.nextPod++)],
    conditions: { ready: !terminating, serving: true, terminating },
  };
  if (plan.topologyHints) ep.hints = { forZones: [{ name: zone }] };
  ep.nodeName = `node-${node}`;
  ep.targetRef = { kind: 'Pod', namespace: plan.namespace, name: `${plan.name}-${rng.suffix(10)}-${rng.suffix(5)}`, uid: rng.uid() };
  ep.zone = zone;
  return ep;
}

/** The Service's one slice: spec.endpoints ready endpoints, plus a terminating one for ~10% of Services. */
export function sliceObject(c: ScaleCluster, plan: ServicePlan): KObject {
  const { rng } = c;
  const endpoints = Array.from({ length: c.spec.endpoints }, () => newEndpoint(c, plan));
  if (rng.next() < 0.1) endpoints.push(newEndpoint(c, plan, true));
  const created = timestamp(rng);
  const labels = { ...plan.labels, 'endpointslice.kubernetes.io/managed-by': MANAGED_BY, 'kubernetes.io/service-name': plan.name };
  const annotations = { [TRIGGER]: created };
  const ownerReferences = [{ apiVersion: 'v1', kind: 'Service', name: plan.name, uid: plan.uid, controller: true, blockOwnerDeletion: true }];
  const metadata = { annotations, generateName: `${plan.name}-`, labels, ownerReferences };
  const fields = fieldsV1({ addressType: 'IPv4', endpoints: [], metadata, ports: [] }, listKey, '', ['endpoints', 'ports']);
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: {
      name: `${plan.name}-${rng.suffix(5)}`, namespace: plan.namespace, uid: rng.uid(), generation: 1, creationTimestamp: created,
      ...metadata, managedFields: [managedEntry('kube-controller-manager', 'discovery.k8s.io/v1', created, fields)],
    },
    addressType: 'IPv4',
    endpoints,
    ports: plan.ports.map((p) => ({ name: p.name, port: p.targetPort, protocol: p.protocol })),
  };
}

/** The slice after the controller's next write: generation, trigger time and managedFields time move on. */
function touched(slice: KObject, now: Date): KObject {
  const s = structuredClone(slice);
  s.metadata.generation = (s.metadata.generation ?? 1) + 1;
  s.metadata.annotations = { ...s.metadata.annotations, [TRIGGER]: now.toISOString() };
  for (const m of s.metadata.managedFields ?? []) m.time = isoSeconds(now);
  return s;
}

/** Whether a slice's endpoint `i` may be changed: the terminating extra one is left alone. */
const changeable = (ep: KObject): boolean => !ep.conditions?.terminating;

/** The slots of the endpoints that may be changed; with `readyOnly`, of the ready ones only. */
const slotsOf = (s: KObject, readyOnly = false): number[] => s.endpoints.map((_: KObject, i: number) => i)
  .filter((i: number) => changeable(s.endpoints[i]) && (!readyOnly || s.endpoints[i].conditions?.ready === true));

/**
 * One pod of the slice replaced by a new one (new IP, name, node): the commonest endpoint change.
 * With `readyOnly` a ready pod is replaced, so that the count of ready endpoints stays (else an
 * endpoint a readiness flip made unready may come back ready).
 */
export function replaceEndpoint(c: ScaleCluster, slice: KObject, now = new Date(), readyOnly = false): KObject {
  const s = touched(slice, now);
  const slots = slotsOf(s, readyOnly);
  const i = slots[c.rng.int(slots.length)];
  const name = s.metadata.labels['kubernetes.io/service-name'];
  s.endpoints[i] = newEndpoint(c, { name, namespace: s.metadata.namespace, topologyHints: s.endpoints[i].hints !== undefined });
  return s;
}

/** One endpoint going unready (a failing readiness probe) or ready again. */
export function flipReadiness(c: ScaleCluster, slice: KObject, now = new Date()): KObject {
  const s = touched(slice, now);
  const slots = slotsOf(s);
  const ep = s.endpoints[slots[c.rng.int(slots.length)]];
  const ready = !ep.conditions.ready;
  ep.conditions = { ready, serving: ready, terminating: false };
  return s;
}

/** One ready endpoint gone from the slice (a pod deleted, a Deployment scaled down by one): the count of ready endpoints drops. */
export function removeEndpoint(c: ScaleCluster, slice: KObject, now = new Date()): KObject {
  const s = touched(slice, now);
  const slots = slotsOf(s, true);
  if (slots.length === 0) throw new Error(`EndpointSlice ${s.metadata.namespace}/${s.metadata.name} has no ready endpoint to remove`);
  s.endpoints.splice(slots[c.rng.int(slots.length)], 1);
  return s;
}

/** One new ready endpoint in the slice (a Deployment scaled up by one): the count grows. */
export function addEndpoint(c: ScaleCluster, slice: KObject, now = new Date()): KObject {
  const s = touched(slice, now);
  const name = s.metadata.labels['kubernetes.io/service-name'];
  const hints = s.endpoints.some((e: KObject) => e.hints !== undefined);
  s.endpoints.push(newEndpoint(c, { name, namespace: s.metadata.namespace, topologyHints: hints }));
  return s;
}
