// 1,000 malformed Services and EndpointSlices among good ones: each bad object is skipped (or its bad
// part left out) with a warning that names it, and every good Service is still programmed and served.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applied, Cluster, startCluster, waitForAnswer } from './harness';
import { endpointSlice, service } from './fixtures';

type Mutator = (o: any) => void;

/** Ways a Service can be broken, as an API server that skipped validation (or a bug) could send it. */
const BAD_SERVICES: [string, Mutator][] = [
  ['clusterIP not an IP', (s) => { s.spec.clusterIP = 'not-an-ip'; s.spec.clusterIPs = ['not-an-ip']; }],
  ['clusterIP out of range', (s) => { s.spec.clusterIP = '100.100.7.300'; s.spec.clusterIPs = ['100.100.7.300']; }],
  ['port zero', (s) => { s.spec.ports[0].port = 0; }],
  ['port too large', (s) => { s.spec.ports[0].port = 70000; }],
  ['negative port', (s) => { s.spec.ports[0].port = -1; }],
  ['port as text', (s) => { s.spec.ports[0].port = 'eighty'; }],
  ['unknown protocol', (s) => { s.spec.ports[0].protocol = 'ICMP'; }],
  ['nodePort too large', (s) => { s.spec.type = 'NodePort'; s.spec.ports[0].nodePort = 99999; }],
  ['ports not a list', (s) => { s.spec.ports = 'http'; }],
  ['port entry null', (s) => { s.spec.ports = [null]; }],
  ['spec null', (s) => { s.spec = null; }],
  ['externalIP garbage', (s) => { s.spec.externalIPs = ['bogus', '1.2.3']; }],
  ['affinity timeout negative', (s) => { s.spec.sessionAffinity = 'ClientIP'; s.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: -5 } }; }],
  ['affinity timeout huge', (s) => { s.spec.sessionAffinity = 'ClientIP'; s.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 1e12 } }; }],
  ['source range garbage', (s) => { s.spec.type = 'LoadBalancer'; s.spec.loadBalancerSourceRanges = ['10.0.0.0/99', 'x']; s.status = { loadBalancer: { ingress: [{ ip: '198.51.100.9' }] } }; }],
  ['ingress IP garbage', (s) => { s.spec.type = 'LoadBalancer'; s.status = { loadBalancer: { ingress: [{ ip: '999.1.1.1' }] } }; }],
  ['unknown IP family', (s) => { s.spec.ipFamilies = ['IPv7']; }],
  ['IPv6 clusterIP listed as IPv4', (s) => { s.spec.clusterIP = 'fd00::77'; s.spec.clusterIPs = ['fd00::77']; s.spec.ipFamilies = ['IPv4']; }],
  ['healthCheckNodePort negative', (s) => { s.spec.type = 'LoadBalancer'; s.spec.externalTrafficPolicy = 'Local'; s.spec.healthCheckNodePort = -1; }],
  ['duplicate ports', (s) => { s.spec.ports = [s.spec.ports[0], { ...s.spec.ports[0] }]; }],
];

const BAD_SLICES: [string, Mutator][] = [
  ['address garbage', (e) => { e.endpoints[0].addresses = ['garbage']; }],
  ['address of the other family', (e) => { e.endpoints[0].addresses = ['fd00::5']; }],
  ['port zero', (e) => { e.ports[0].port = 0; }],
  ['port too large', (e) => { e.ports[0].port = 70000; }],
  ['port as text', (e) => { e.ports[0].port = 'http'; }],
  ['endpoints not a list', (e) => { e.endpoints = 'pod0'; }],
  ['endpoint null', (e) => { e.endpoints = [null]; }],
  ['addresses missing', (e) => { delete e.endpoints[0].addresses; }],
  ['conditions of the wrong type', (e) => { e.endpoints[0].conditions = 'ready'; }],
  ['ports not a list', (e) => { e.ports = 8080; }],
  ['unknown address type', (e) => { e.addressType = 'IPv9'; }],
  ['protocol unknown', (e) => { e.ports[0].protocol = 'GRE'; }],
];

const ports = [{ name: 'http', port: 80, targetPort: 8080 }];

describe('1,000 malformed Services and EndpointSlices', () => {
  let c: Cluster;
  const log: string[] = [];
  const badNames: string[] = [];
  before(async () => { c = await startCluster({ pods: 2, logLines: log }); });
  after(async () => { await c?.stop(); });

  it('skips each with a warning naming it and programs the good Services', async () => {
    const pod = c.topo.pods[0];
    for (let i = 0; i < 500; i++) {
      const [, breakIt] = BAD_SERVICES[i % BAD_SERVICES.length];
      const name = `bad-svc-${i}`;
      const s = service(name, { clusterIP: `100.101.${i >> 8}.${i & 255}`, ports });
      breakIt(s);
      c.api.create('services', s);
      badNames.push(name);
    }
    for (let i = 0; i < 500; i++) {
      const [, breakIt] = BAD_SLICES[i % BAD_SLICES.length];
      const name = `bad-eps-${i}`;
      c.api.create('services', service(name, { clusterIP: `100.102.${i >> 8}.${i & 255}`, ports }));
      const e = endpointSlice(name, `${name}-1`, { ports, endpoints: [{ ip: pod.ip }] });
      breakIt(e);
      c.api.create('endpointslices', e);
      badNames.push(`${name}-1`);
    }
    for (let i = 0; i < 5; i++) {
      c.api.create('services', service(`good-${i}`, { clusterIP: `100.100.1.${i + 1}`, ports }));
      c.api.create('endpointslices', endpointSlice(`good-${i}`, `good-${i}-1`, { ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })) }));
    }
    for (let i = 0; i < 5; i++) await waitForAnswer(c, 'tcp', `100.100.1.${i + 1}`, 80);
    await applied(c);

    const warnings = log.map((l) => JSON.parse(l)).filter((e) => e.level >= 40);
    const named = new Set(warnings.flatMap((w) => [w.name, String(w.object ?? '').split('/')[1]]));
    const silent = badNames.filter((n) => !named.has(n));
    assert.deepEqual(silent.slice(0, 20), [], `${silent.length} malformed objects were accepted without a warning naming them`);
    for (const w of warnings.slice(0, 50)) assert.ok(typeof w.msg === 'string' && w.msg.length > 10, `unclear warning: ${JSON.stringify(w)}`);
    const failures = await c.proxy.metrics.nftablesSyncFailuresTotal.get();
    assert.equal(failures.values.reduce((n, v) => n + v.value, 0), 0, 'no sync failed');
    // A later unrelated change does not repeat the 1,000 warnings.
    const before = warnings.length;
    c.api.create('services', service('good-late', { clusterIP: '100.100.1.99', ports }));
    c.api.create('endpointslices', endpointSlice('good-late', 'good-late-1', { ports, endpoints: [{ ip: pod.ip }] }));
    await waitForAnswer(c, 'tcp', '100.100.1.99', 80);
    const after = log.map((l) => JSON.parse(l)).filter((e) => e.level >= 40).length;
    assert.ok(after - before < 5, `${after - before} new warnings after one good change`);
  });
});
