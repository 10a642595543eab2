// explainEndpoints: one case per reason code, and over generated cases its "used" sets are the
// selection's with no reason it cannot explain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { explainEndpoints, type EndpointExplanation, type EndpointsExplanation } from '../../src/core/endpoint-reasons';
import { endpointKey } from '../../src/core/keys';
import type { ServicePort } from '../../src/core/types';
import { servicePort, slice, sliceEndpoint } from './fixtures';

const NODE = { nodeName: 'node-a', zone: 'zone-a' };
const HTTP = servicePort({ key: 'ns/svc:http/TCP/IPv4', name: 'svc', portName: 'http' });
const ports = [{ name: 'http', port: 8080, protocol: 'TCP' }];

const ready = (ip: string, extra: Parameters<typeof sliceEndpoint>[1] = {}) => sliceEndpoint(ip, extra);
const terminating = (ip: string, extra: Parameters<typeof sliceEndpoint>[1] = {}) =>
  sliceEndpoint(ip, { conditions: { ready: false, serving: true, terminating: true }, ...extra });
const notReady = (ip: string, extra: Parameters<typeof sliceEndpoint>[1] = {}) =>
  sliceEndpoint(ip, { conditions: { ready: false, serving: false, terminating: false }, ...extra });
const onNode = (nodeName: string) => ({ nodeName });
const zoneHint = (zone: string, z = zone) => ({ zone: z, hints: { forZones: [{ name: zone }] } });

function explain(slices: V1EndpointSlice[], sp: ServicePort = HTTP, node = NODE): EndpointsExplanation {
  return explainEndpoints(sp, slices, node);
}

function row(x: EndpointsExplanation, ip: string): EndpointExplanation {
  const found = x.endpoints.find((e) => e.ip === ip);
  assert.ok(found, `no row for ${ip} in ${JSON.stringify(x.endpoints.map((e) => e.ip))}`);
  return found;
}

test('ready endpoints under Cluster policy: used, no reason; Local not applicable', () => {
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1'), ready('10.1.0.2')], { ports })]);
  assert.deepEqual(row(x, '10.1.0.1').cluster, { use: 'used' });
  assert.deepEqual(row(x, '10.1.0.1').local, { use: 'not-applicable' });
  assert.equal(row(x, '10.1.0.1').port, 8080);
  assert.deepEqual(row(x, '10.1.0.1').slices, ['s1']);
  assert.equal(x.hasAny, true);
  assert.equal(x.clusterFallback, false);
});

test('not-ready: neither ready nor serving-terminating', () => {
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1'), notReady('10.1.0.2')], { ports })]);
  assert.equal(row(x, '10.1.0.2').cluster.use, 'unused');
  assert.equal(row(x, '10.1.0.2').cluster.reason?.code, 'not-ready');
});

test('terminating-not-needed: ready endpoints exist', () => {
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1'), terminating('10.1.0.2')], { ports })]);
  assert.equal(row(x, '10.1.0.2').cluster.use, 'unused');
  assert.equal(row(x, '10.1.0.2').cluster.reason?.code, 'terminating-not-needed');
});

test('terminating-fallback: no endpoint is ready, the serving-terminating ones are used', () => {
  const x = explain([slice('s1', 'svc', [terminating('10.1.0.1'), notReady('10.1.0.2')], { ports })]);
  assert.equal(row(x, '10.1.0.1').cluster.use, 'used');
  assert.equal(row(x, '10.1.0.1').cluster.reason?.code, 'terminating-fallback');
  assert.equal(row(x, '10.1.0.2').cluster.reason?.code, 'not-ready');
  assert.equal(x.clusterFallback, true);
});

test('other-zone: zone hints (PreferSameZone) keep it for another zone', () => {
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1', zoneHint('zone-a')), ready('10.1.0.2', zoneHint('zone-b'))], { ports })]);
  assert.equal(x.topology, 'PreferSameZone');
  assert.equal(row(x, '10.1.0.1').cluster.use, 'used');
  assert.equal(row(x, '10.1.0.2').cluster.use, 'unused');
  assert.equal(row(x, '10.1.0.2').cluster.reason?.code, 'other-zone');
  assert.match(row(x, '10.1.0.2').cluster.reason!.text, /zone-b.*zone-a/);
});

test('other-node: node hints (PreferSameNode) keep it for another node', () => {
  const hints = (n: string) => ({ nodeName: n, hints: { forNodes: [{ name: n }] } });
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1', hints('node-a')), ready('10.1.0.2', hints('node-b'))], { ports })]);
  assert.equal(x.topology, 'PreferSameNode');
  assert.equal(row(x, '10.1.0.2').cluster.reason?.code, 'other-node');
  assert.equal(row(x, '10.1.0.1').cluster.use, 'used');
});

test('zone hints ignored when one ready endpoint has none: a note, every endpoint used', () => {
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1', zoneHint('zone-a')), ready('10.1.0.2')], { ports })]);
  assert.equal(x.topology, '');
  assert.match(x.topologyNote ?? '', /zone hints ignored: 10\.1\.0\.2:8080 has none/);
  assert.equal(row(x, '10.1.0.2').cluster.use, 'used');
});

test('not-local: externalTrafficPolicy Local uses this node\'s endpoints for external traffic', () => {
  const sp = { ...HTTP, nodePort: 30080, externalPolicyLocal: true };
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1', onNode('node-a')), ready('10.1.0.2', onNode('node-b'))], { ports })], sp);
  assert.equal(row(x, '10.1.0.1').local.use, 'used');
  assert.equal(row(x, '10.1.0.2').local.use, 'unused');
  assert.equal(row(x, '10.1.0.2').local.reason?.code, 'not-local');
  assert.match(row(x, '10.1.0.2').local.reason!.text, /node-b/);
  assert.equal(row(x, '10.1.0.2').cluster.use, 'used', 'pods and the node still reach every endpoint');
});

test('internalTrafficPolicy Local without external access: cluster set not applicable', () => {
  const sp = { ...HTTP, internalPolicyLocal: true };
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1', onNode('node-a')), ready('10.1.0.2', onNode('node-b'))], { ports })], sp);
  assert.equal(x.usesCluster, false);
  assert.deepEqual(row(x, '10.1.0.1').cluster, { use: 'not-applicable' });
  assert.equal(row(x, '10.1.0.2').local.reason?.code, 'not-local');
});

test('Local set: local terminating endpoints are the fallback when no local one is ready', () => {
  const sp = { ...HTTP, internalPolicyLocal: true };
  const x = explain([slice('s1', 'svc', [terminating('10.1.0.1', onNode('node-a')), ready('10.1.0.2', onNode('node-b'))], { ports })], sp);
  assert.equal(row(x, '10.1.0.1').local.use, 'used');
  assert.equal(row(x, '10.1.0.1').local.reason?.code, 'terminating-fallback');
  assert.equal(x.localFallback, true);
});

test('wrong-family: an IPv6 slice of a dual-stack Service, and an IPv6 address in an IPv4 slice', () => {
  const x = explain([
    slice('s4', 'svc', [ready('10.1.0.1'), ready('fd00::9')], { ports }),
    slice('s6', 'svc', [ready('fd00::1')], { ports, addressType: 'IPv6' }),
  ]);
  assert.equal(row(x, 'fd00::1').cluster.reason?.code, 'wrong-family');
  assert.match(row(x, 'fd00::1').cluster.reason!.text, /IPv6 endpoint; this is the IPv4 ServicePort/);
  assert.equal(row(x, 'fd00::9').cluster.reason?.code, 'wrong-family');
  assert.match(row(x, 'fd00::9').cluster.reason!.text, /IPv6 address in an IPv4 slice/);
  assert.equal(row(x, '10.1.0.1').cluster.use, 'used');
});

test('wrong-family: an FQDN slice', () => {
  const x = explain([slice('sf', 'svc', [ready('example.com')], { ports, addressType: 'FQDN' })]);
  assert.equal(row(x, 'example.com').cluster.reason?.code, 'wrong-family');
});

test('no-matching-port: a slice that serves other ports only', () => {
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1')], { ports: [{ name: 'metrics', port: 9090, protocol: 'TCP' }] })]);
  assert.equal(row(x, '10.1.0.1').cluster.reason?.code, 'no-matching-port');
  assert.match(row(x, '10.1.0.1').cluster.reason!.text, /metrics\/TCP; none is http\/TCP/);
  assert.equal(row(x, '10.1.0.1').port, 0);
  assert.equal(x.hasAny, false);
});

test('invalid-address and duplicate', () => {
  const x = explain([slice('s1', 'svc', [ready('10.1.0.1'), ready('10.1.0.1'), ready('not-an-ip'), { addresses: [], conditions: {} }], { ports })]);
  const dup = x.endpoints.filter((e) => e.ip === '10.1.0.1');
  assert.equal(dup.length, 2);
  assert.equal(dup[0].cluster.use, 'used');
  assert.equal(dup[1].cluster.reason?.code, 'duplicate');
  assert.equal(row(x, 'not-an-ip').cluster.reason?.code, 'invalid-address');
  assert.equal(row(x, '').cluster.reason?.code, 'invalid-address');
});

test('an endpoint listed by two slices is one row naming both; slices of other Services are ignored', () => {
  const x = explain([
    slice('s1', 'svc', [ready('10.1.0.1')], { ports }),
    slice('s2', 'svc', [ready('10.1.0.1')], { ports }),
    slice('o1', 'other', [ready('10.9.9.9')], { ports }),
  ]);
  assert.deepEqual(x.endpoints.map((e) => [e.ip, e.slices]), [['10.1.0.1', ['s1', 's2']]]);
});

// --- agreement with selectEndpoints over generated cases

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function generated(r: () => number): { sp: ServicePort; slices: V1EndpointSlice[]; node: typeof NODE } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const n = Math.floor(r() * 7);
  const hintMode = pick(['none', 'zones', 'nodes', 'partial']);
  const eps = Array.from({ length: n }, (_, i) => {
    const node = pick(['node-a', 'node-b', 'node-c']);
    const zone = pick(['zone-a', 'zone-b']);
    const cond = pick([
      { ready: true, serving: true, terminating: false },
      { ready: false, serving: true, terminating: true },
      { ready: false, serving: false, terminating: true },
      { ready: false, serving: false, terminating: false },
      {},
    ]);
    const hints = hintMode === 'zones' || (hintMode === 'partial' && r() < 0.7)
      ? { forZones: [{ name: zone }] }
      : hintMode === 'nodes' ? { forNodes: [{ name: node }], forZones: [{ name: zone }] } : undefined;
    return sliceEndpoint(`10.2.${i}.${1 + Math.floor(r() * 3)}`, { conditions: cond, nodeName: node, zone, ...(hints ? { hints } : {}) });
  });
  const externallyAccessible = r() < 0.5;
  const sp = {
    ...HTTP,
    nodePort: externallyAccessible ? 30080 : 0,
    externalPolicyLocal: r() < 0.5,
    internalPolicyLocal: r() < 0.3,
  };
  const half = Math.floor(eps.length / 2);
  const slices = [slice('s1', 'svc', eps.slice(0, half), { ports }), slice('s2', 'svc', eps.slice(half), { ports })];
  return { sp, slices, node: { nodeName: pick(['node-a', 'node-b']), zone: pick(['zone-a', 'zone-b', '']) } };
}

test('over 2,000 generated cases the used sets are the selection\'s and every reason is explained', () => {
  const r = rng(14);
  let usedSomewhere = 0;
  let unusedSomewhere = 0;
  for (let i = 0; i < 2000; i++) {
    const c = generated(r);
    const x = explainEndpoints(c.sp, c.slices, c.node);
    const keys = (list: readonly { ip: string; port: number }[]) => list.map((e) => endpointKey(e.ip, e.port)).sort();
    const used = (kind: 'cluster' | 'local') => keys(x.endpoints.filter((e) => e[kind].use === 'used'));
    assert.deepEqual(used('cluster'), keys(x.selection.cluster), `case ${i}: cluster`);
    assert.deepEqual(used('local'), keys(x.selection.local), `case ${i}: local`);
    for (const e of x.endpoints) {
      for (const kind of ['cluster', 'local'] as const) {
        assert.notEqual(e[kind].reason?.code, 'unexplained', `case ${i}: ${e.ip} ${kind}: ${JSON.stringify(c)}`);
        if (e[kind].use === 'unused') assert.ok(e[kind].reason, `case ${i}: an unused endpoint without a reason`);
        if (e[kind].use === 'used') usedSomewhere++;
        if (e[kind].use === 'unused') unusedSomewhere++;
      }
    }
  }
  assert.ok(usedSomewhere > 1000 && unusedSomewhere > 1000, `generated cases cover both (${usedSomewhere} used, ${unusedSomewhere} unused)`);
});
