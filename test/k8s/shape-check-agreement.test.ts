// The shape check answers most objects with a validator compiled per type and walks an object
// field by field only when the validator refuses it (src/k8s/shape-check.ts). If the two ever
// disagreed, a broken object would be taken (validator yes, walk would have named a field) or a good
// one refused with no field to name. Here both judge thousands of realistic objects broken at random
// places in random ways, from a fixed seed so a failure can be replayed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeProblem, fitsShape } from '../../src/k8s/shape-check';
import { realNamespace, realNode, realService, realServiceCIDR, realSlice } from './realistic-objects';
import { seededRandom } from '../helpers/seeded-random';

type Json = Record<string, unknown>;


const originals: { type: string; make: () => Json }[] = [
  { type: 'V1Service', make: () => realService('ns', 'web', { clusterIP: '10.0.0.1', ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] }) },
  {
    type: 'V1Service',
    make: () => realService('ns', 'lb', {
      type: 'LoadBalancer', clusterIP: '10.0.0.2', externalTrafficPolicy: 'Local', healthCheckNodePort: 30999, sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } }, loadBalancerSourceRanges: ['192.0.2.0/24'],
      ports: [{ name: 'a', port: 443, targetPort: 8443, nodePort: 31000, protocol: 'TCP' }, { name: 'b', port: 53, targetPort: 53, nodePort: 31001, protocol: 'UDP' }],
    }, { status: { loadBalancer: { ingress: [{ ip: '198.51.100.7', ipMode: 'VIP', ports: [{ port: 443, protocol: 'TCP' }] }] } } }),
  },
  {
    type: 'V1EndpointSlice',
    make: () => realSlice('ns', 'web', 'abcde', 'IPv4', [{ name: 'http', port: 8080, protocol: 'TCP' }, null], [
      { ip: '10.1.0.5', node: 'n1', zone: 'z1', hints: { forZones: [{ name: 'z1' }], forNodes: [{ name: 'n1' }] } },
      { ip: '10.1.0.6', node: 'n2', conditions: { ready: false, serving: true, terminating: true } },
      { ip: '10.1.0.7', conditions: null },
    ]),
  },
  { type: 'V1Node', make: () => realNode('n1', { zone: 'z1', podCIDRs: ['10.1.0.0/24'], taints: [{ key: 'k', effect: 'NoSchedule' }] }) },
  { type: 'V1Namespace', make: () => realNamespace('ns', { 'networking.k8s.io/kube-proxy': 'disabled' }) },
  { type: 'V1ServiceCIDR', make: () => realServiceCIDR('kubernetes', ['10.0.0.0/16', 'fd00::/108']) },
];

/** Field names the models have, so that added fields are checked rather than ignored. */
const FIELD_NAMES = ['spec', 'metadata', 'status', 'ports', 'port', 'name', 'labels', 'annotations', 'endpoints', 'addresses',
  'conditions', 'ready', 'serving', 'terminating', 'hints', 'forZones', 'forNodes', 'nodeName', 'zone', 'clusterIP', 'clusterIPs',
  'type', 'selector', 'sessionAffinityConfig', 'clientIP', 'timeoutSeconds', 'ingress', 'ip', 'ipMode', 'loadBalancer', 'podCIDRs',
  'taints', 'cidrs', 'nodePort', 'targetPort', 'protocol', 'managedFields', 'fieldsV1', 'ownerReferences', 'deletionTimestamp', 'x-unknown'];

function randomValue(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * (depth > 1 ? 6 : 11));
  switch (pick) {
    case 0: return 'x';
    case 1: return Math.floor(r() * 70000);
    case 2: return r() < 0.5;
    case 3: return null;
    case 4: return [];
    case 5: return {};
    case 6: return [randomValue(r, depth + 1), randomValue(r, depth + 1)];
    case 7: return { [FIELD_NAMES[Math.floor(r() * FIELD_NAMES.length)]]: randomValue(r, depth + 1) };
    case 8: return Object.assign(Object.create(null) as Json, { [FIELD_NAMES[Math.floor(r() * FIELD_NAMES.length)]]: randomValue(r, depth + 1) });
    case 9: return [{ [FIELD_NAMES[Math.floor(r() * FIELD_NAMES.length)]]: randomValue(r, depth + 1) }];
    default: return String(Math.floor(r() * 10));
  }
}

/** Every object and list in the tree (the root included), to break one of them. */
function containers(v: unknown, out: (Json | unknown[])[] = []): (Json | unknown[])[] {
  if (typeof v !== 'object' || v === null) return out;
  out.push(v as Json | unknown[]);
  for (const child of Array.isArray(v) ? v : Object.values(v)) containers(child, out);
  return out;
}

function mutate(obj: Json, r: () => number): void {
  const all = containers(obj);
  const target = all[Math.floor(r() * all.length)];
  if (Array.isArray(target)) {
    if (target.length > 0 && r() < 0.7) target[Math.floor(r() * target.length)] = randomValue(r);
    else target.push(randomValue(r));
    return;
  }
  const keys = Object.keys(target);
  const roll = r();
  if (keys.length > 0 && roll < 0.5) target[keys[Math.floor(r() * keys.length)]] = randomValue(r);
  else if (keys.length > 0 && roll < 0.6) delete target[keys[Math.floor(r() * keys.length)]];
  else target[FIELD_NAMES[Math.floor(r() * FIELD_NAMES.length)]] = randomValue(r);
}

test('the compiled validator and the field-naming walk agree on thousands of randomly broken objects', () => {
  const r = seededRandom(20261126);
  let refused = 0;
  let taken = 0;
  const ROUNDS = 6000;
  for (let i = 0; i < ROUNDS; i++) {
    const { type, make } = originals[i % originals.length];
    const obj = make();
    const mutations = 1 + Math.floor(r() * 3);
    for (let m = 0; m < mutations; m++) mutate(obj, r);
    const fits = fitsShape(obj, type);
    const problem = describeProblem(obj, type);
    assert.equal(fits, problem === null, `round ${i} (${type}): validator says ${fits ? 'fits' : 'does not fit'}, walk says ${problem ?? 'nothing wrong'}: ${JSON.stringify(obj).slice(0, 2000)}`);
    if (fits) taken++; else refused++;
  }
  // Both answers must be common, or the agreement would prove nothing.
  assert.ok(refused > ROUNDS / 5 && taken > ROUNDS / 5, `refused ${refused}, taken ${taken} of ${ROUNDS}`);
});

test('every unbroken original fits its model', () => {
  for (const { type, make } of originals) {
    assert.equal(describeProblem(make(), type), null);
    assert.equal(fitsShape(make(), type), true);
  }
});
