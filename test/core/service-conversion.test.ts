import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servicePortsFromService, SOURCE_RANGES_ANNOTATION } from '../../src/core/service-conversion';
import { recordingLogger, service } from './fixtures';

const V4 = ['IPv4'] as const;
const DUAL = ['IPv4', 'IPv6'] as const;

test('a ClusterIP Service becomes one ServicePort per port with upstream defaults', () => {
  const log = recordingLogger();
  const svc = service('web', { ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }] });
  // Who owns an address two Services claim (core/address-ownership) reads these two.
  svc.metadata!.uid = '6f1c2a4e-0000-4000-8000-000000000001';
  svc.metadata!.creationTimestamp = new Date('2026-01-01T00:00:00Z');
  const sps = servicePortsFromService(svc, V4, log);
  const identity = { created: 1767225600, uid: '6f1c2a4e-0000-4000-8000-000000000001' };
  assert.deepEqual(sps, [
    {
      key: 'ns/web:http/TCP/IPv4', namespace: 'ns', name: 'web', portName: 'http', protocol: 'TCP', family: 'IPv4',
      clusterIP: '10.96.0.10', port: 80, nodePort: 0, externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [],
      affinityTimeoutSeconds: 0, externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0, ...identity,
    },
    {
      key: 'ns/web:dns/UDP/IPv4', namespace: 'ns', name: 'web', portName: 'dns', protocol: 'UDP', family: 'IPv4',
      clusterIP: '10.96.0.10', port: 53, nodePort: 0, externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [],
      affinityTimeoutSeconds: 0, externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0, ...identity,
    },
  ]);
  // A creationTimestamp as the API sends it (a string, when the object was not decoded by client-node).
  (svc.metadata as { creationTimestamp: unknown }).creationTimestamp = '2026-01-01T00:00:09Z';
  assert.equal(servicePortsFromService(svc, V4, log)[0].created, 1767225609);
  assert.equal(log.lines.length, 0);
});

test('dual-stack: one ServicePort per port and family, clusterIPs matched to ipFamilies', () => {
  const svc = service('web', { ipFamilies: ['IPv6', 'IPv4'], clusterIP: 'fd00::10', clusterIPs: ['fd00::10', '10.96.0.10'] });
  const sps = servicePortsFromService(svc, DUAL, recordingLogger());
  assert.deepEqual(sps.map((s) => [s.key, s.clusterIP]), [
    ['ns/web:http/TCP/IPv4', '10.96.0.10'],
    ['ns/web:http/TCP/IPv6', 'fd00::10'],
  ]);
  assert.deepEqual(servicePortsFromService(svc, ['IPv4'], recordingLogger()).map((s) => s.family), ['IPv4']);
});

test('a single-stack Service gives nothing for the other family', () => {
  assert.deepEqual(servicePortsFromService(service('web'), ['IPv6'], recordingLogger()), []);
});

test('objects without ipFamilies fall back to clusterIP and its family', () => {
  const svc = service('old', { ipFamilies: undefined, clusterIPs: undefined, clusterIP: 'fd00::1' });
  assert.deepEqual(servicePortsFromService(svc, DUAL, recordingLogger()).map((s) => s.key), ['ns/old:http/TCP/IPv6']);
});

test('ExternalName, headless and cluster-IP-less Services are ignored without noise', () => {
  const log = recordingLogger();
  assert.deepEqual(servicePortsFromService(service('x', { type: 'ExternalName', externalName: 'example.com', clusterIP: undefined, clusterIPs: undefined }), V4, log), []);
  assert.deepEqual(servicePortsFromService(service('h', { clusterIP: 'None', clusterIPs: ['None'] }), V4, log), []);
  assert.deepEqual(servicePortsFromService(service('n', { clusterIP: undefined, clusterIPs: undefined, ipFamilies: undefined }), V4, log), []);
  assert.equal(log.lines.length, 0);
});

test('external IPs are split by family; invalid ones are logged and dropped', () => {
  const log = recordingLogger();
  const svc = service('web', {
    ipFamilies: ['IPv4', 'IPv6'], clusterIPs: ['10.96.0.10', 'fd00::10'],
    externalIPs: ['192.0.2.1', '2001:db8::1', 'not-an-ip', '192.0.2.1'],
  });
  const [v4, v6] = servicePortsFromService(svc, DUAL, log);
  assert.deepEqual(v4.externalIPs, ['192.0.2.1']);
  assert.deepEqual(v6.externalIPs, ['2001:db8::1']);
  assert.equal(log.lines.length, 1);
  assert.deepEqual(log.lines[0].obj, { kind: 'Service', namespace: 'ns', name: 'web', field: 'spec.externalIPs', value: 'not-an-ip' });
});

test('load balancer ingress: VIP-mode IPs by family, Proxy mode and hostnames excluded', () => {
  const svc = service('lb', { type: 'LoadBalancer', ipFamilies: ['IPv4', 'IPv6'], clusterIPs: ['10.96.0.10', 'fd00::10'] }, {
    status: {
      loadBalancer: {
        ingress: [
          { ip: '203.0.113.1' },
          { ip: '203.0.113.2', ipMode: 'VIP' },
          { ip: '203.0.113.3', ipMode: 'Proxy' },
          { hostname: 'lb.example.com' },
          { ip: '2001:db8::5' },
        ],
      },
    },
  });
  const [v4, v6] = servicePortsFromService(svc, DUAL, recordingLogger());
  assert.deepEqual(v4.loadBalancerIPs, ['203.0.113.1', '203.0.113.2']);
  assert.deepEqual(v6.loadBalancerIPs, ['2001:db8::5']);
});

test('loadBalancerSourceRanges: trimmed, split by family, invalid ones logged', () => {
  const log = recordingLogger();
  const svc = service('lb', {
    type: 'LoadBalancer', ipFamilies: ['IPv4', 'IPv6'], clusterIPs: ['10.96.0.10', 'fd00::10'],
    loadBalancerSourceRanges: [' 192.0.2.0/24 ', '2001:db8::/32', '10.0.0.0/33', 'garbage'],
  });
  const [v4, v6] = servicePortsFromService(svc, DUAL, log);
  assert.deepEqual(v4.loadBalancerSourceRanges, ['192.0.2.0/24']);
  assert.deepEqual(v6.loadBalancerSourceRanges, ['2001:db8::/32']);
  assert.deepEqual(log.lines.map((l) => l.obj.value), ['10.0.0.0/33', 'garbage']);
});

test('source ranges annotation is used only when the spec field is empty', () => {
  const annotated = { annotations: { [SOURCE_RANGES_ANNOTATION]: '198.51.100.0/24, 203.0.113.0/24' } };
  const fromAnnotation = servicePortsFromService(service('a', { type: 'LoadBalancer' }, annotated), V4, recordingLogger());
  assert.deepEqual(fromAnnotation[0].loadBalancerSourceRanges, ['198.51.100.0/24', '203.0.113.0/24']);
  const specWins = servicePortsFromService(
    service('b', { type: 'LoadBalancer', loadBalancerSourceRanges: ['192.0.2.0/24'] }, annotated), V4, recordingLogger());
  assert.deepEqual(specWins[0].loadBalancerSourceRanges, ['192.0.2.0/24']);
});

test('session affinity: ClientIP defaults to 10800 s, honours the configured timeout', () => {
  const log = recordingLogger();
  const t = (spec: Parameters<typeof service>[1]) => servicePortsFromService(service('s', spec), V4, log)[0].affinityTimeoutSeconds;
  assert.equal(t({ sessionAffinity: 'None' }), 0);
  assert.equal(t({}), 0);
  assert.equal(t({ sessionAffinity: 'ClientIP' }), 10800);
  assert.equal(t({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } }), 60);
  assert.equal(log.lines.length, 0);
  assert.equal(t({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 100000 } } }), 10800);
  assert.match(log.lines[0].msg, /timeout/);
});

test('traffic policies follow upstream: eTP Local only when externally accessible', () => {
  const sp = (spec: Parameters<typeof service>[1]) => servicePortsFromService(service('s', spec), V4, recordingLogger())[0];
  assert.equal(sp({ type: 'NodePort', externalTrafficPolicy: 'Local', ports: [{ port: 80, nodePort: 30080 }] }).externalPolicyLocal, true);
  assert.equal(sp({ type: 'ClusterIP', externalTrafficPolicy: 'Local' }).externalPolicyLocal, false);
  assert.equal(sp({ type: 'ClusterIP', externalTrafficPolicy: 'Local', externalIPs: ['192.0.2.1'] }).externalPolicyLocal, true);
  assert.equal(sp({ type: 'LoadBalancer', externalTrafficPolicy: 'Cluster' }).externalPolicyLocal, false);
  assert.equal(sp({ internalTrafficPolicy: 'Local' }).internalPolicyLocal, true);
  assert.equal(sp({ internalTrafficPolicy: 'Cluster' }).internalPolicyLocal, false);
});

test('NodePort, healthCheckNodePort and trafficDistribution are carried', () => {
  const log = recordingLogger();
  const [lb] = servicePortsFromService(service('lb', {
    type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 32000,
    ports: [{ name: '', port: 443, nodePort: 31443 }], trafficDistribution: 'PreferClose',
  }), V4, log);
  assert.equal(lb.nodePort, 31443);
  assert.equal(lb.healthCheckNodePort, 32000);
  assert.equal(lb.trafficDistribution, 'PreferClose');
  assert.equal(lb.protocol, 'TCP', 'protocol defaults to TCP');
  assert.equal(lb.key, 'ns/lb:/TCP/IPv4');
  const [np] = servicePortsFromService(service('np', { type: 'NodePort', externalTrafficPolicy: 'Local', healthCheckNodePort: 32001 }), V4, log);
  assert.equal(np.healthCheckNodePort, 0, 'only LoadBalancer Services get health checks');
  assert.equal(log.lines.length, 0);
  const [missing] = servicePortsFromService(service('lb2', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' }), V4, log);
  assert.equal(missing.healthCheckNodePort, 0);
  assert.deepEqual(log.lines[0].obj, { kind: 'Service', namespace: 'ns', name: 'lb2', field: 'spec.healthCheckNodePort', value: 0 });
});

test('bad ports are skipped one by one, each with a log line naming the Service and field', () => {
  const log = recordingLogger();
  const sps = servicePortsFromService(service('odd', {
    ports: [
      { name: 'a', port: 80, protocol: 'TCP' },
      { name: 'b', port: 81, protocol: 'ICMP' },
      { name: 'c', port: 0 },
      { name: 'd', port: 70000 },
      { name: 'a', port: 82, protocol: 'TCP' },
      { name: 'e', port: 83, nodePort: -1 },
      { name: 'a', port: 84, protocol: 'UDP' },
    ],
  }), V4, log);
  assert.deepEqual(sps.map((s) => s.key), ['ns/odd:a/TCP/IPv4', 'ns/odd:a/UDP/IPv4']);
  assert.deepEqual(log.lines.map((l) => [l.obj.name, l.obj.field]), [
    ['odd', 'spec.ports[1]'], ['odd', 'spec.ports[2]'], ['odd', 'spec.ports[3]'], ['odd', 'spec.ports[4]'], ['odd', 'spec.ports[5]'],
  ]);
  assert.match(log.lines[0].msg, /unknown protocol/);
  assert.match(log.lines[3].msg, /duplicate/);
});

test('a Service without ports, without a name, or with 10,000 ports is skipped with a log line', () => {
  const log = recordingLogger();
  assert.deepEqual(servicePortsFromService(service('empty', { ports: [] }), V4, log), []);
  assert.deepEqual(log.lines[0], { obj: { kind: 'Service', namespace: 'ns', name: 'empty' }, msg: 'Service has no ports; skipped' });
  const nameless = service('x');
  delete nameless.metadata!.name;
  assert.deepEqual(servicePortsFromService(nameless, V4, log), []);
  assert.match(log.lines[1].msg, /metadata/);
  const many = service('huge', { ports: Array.from({ length: 10000 }, (_, i) => ({ name: `p${i}`, port: 1 + i })) });
  assert.deepEqual(servicePortsFromService(many, V4, log), []);
  assert.equal(log.lines[2].obj.name, 'huge');
  assert.match(log.lines[2].msg, /too many ports/);
  assert.equal(servicePortsFromService(many, V4, log, { maxPortsPerService: 10000 }).length, 10000, 'the cap is configurable');
});

test('a cluster IP that is not an address of its family is logged and that family skipped', () => {
  const log = recordingLogger();
  const svc = service('bad', { ipFamilies: ['IPv4', 'IPv6'], clusterIP: 'fd00::1', clusterIPs: ['fd00::1', 'fd00::2'] });
  assert.deepEqual(servicePortsFromService(svc, DUAL, log).map((s) => s.family), ['IPv6']);
  assert.deepEqual(log.lines, [{
    obj: { kind: 'Service', namespace: 'ns', name: 'bad', field: 'spec.clusterIPs[0]', value: 'fd00::1', family: 'IPv4' },
    msg: 'not an IPv4 address, yet spec.ipFamilies[0] is IPv4; the Service is not served over IPv4',
  }]);
});

// Objects the API server would refuse: what is dropped or assumed is named once a conversion, with
// the field, whether or not this node serves the family concerned.

test('a second IPv4 cluster IP (ipFamilies IPv4 twice) is named and ignored; the first is served', () => {
  for (const families of [V4, DUAL]) {
    const log = recordingLogger();
    const svc = service('two', { ipFamilies: ['IPv4', 'IPv4'], clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1', '10.96.0.2'] });
    assert.deepEqual(servicePortsFromService(svc, families, log).map((s) => [s.key, s.clusterIP]), [['ns/two:http/TCP/IPv4', '10.96.0.1']]);
    assert.deepEqual(log.lines, [{
      obj: { kind: 'Service', namespace: 'ns', name: 'two', field: 'spec.ipFamilies[1]', value: 'IPv4', ignored: '10.96.0.2' },
      msg: 'IPv4 listed twice in spec.ipFamilies: a Service has one cluster IP per family; spec.clusterIPs[1] is ignored, spec.clusterIPs[0] used',
    }], families.join());
  }
});

test('a second IPv4 cluster IP under ipFamilies [IPv4, IPv6] is named even on an IPv4-only node', () => {
  for (const families of [V4, DUAL]) {
    const log = recordingLogger();
    const svc = service('mixed', { ipFamilies: ['IPv4', 'IPv6'], clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1', '10.96.0.2'] });
    assert.deepEqual(servicePortsFromService(svc, families, log).map((s) => s.key), ['ns/mixed:http/TCP/IPv4']);
    assert.equal(log.lines.length, 1, families.join());
    assert.deepEqual(log.lines[0].obj, { kind: 'Service', namespace: 'ns', name: 'mixed', field: 'spec.clusterIPs[1]', value: '10.96.0.2', family: 'IPv6' });
  }
});

test('cluster IPs beyond ipFamilies, and a clusterIP other than clusterIPs[0], are named; clusterIPs[0] is served', () => {
  const log = recordingLogger();
  const svc = service('extra', { ipFamilies: ['IPv4'], clusterIP: '10.96.0.9', clusterIPs: ['10.96.0.1', '10.96.0.2'] });
  assert.deepEqual(servicePortsFromService(svc, DUAL, log).map((s) => s.clusterIP), ['10.96.0.1']);
  assert.deepEqual(log.lines.map((l) => [l.obj.field, l.obj.value, l.msg]), [
    ['spec.clusterIPs[1]', '10.96.0.2', 'cluster IP without a spec.ipFamilies entry of its index; ignored'],
    ['spec.clusterIP', '10.96.0.9', 'spec.clusterIP differs from spec.clusterIPs[0]; spec.clusterIPs[0] is used, as upstream'],
  ]);
});

test('an old object (no ipFamilies) whose clusterIP is not an address is named', () => {
  const log = recordingLogger();
  const svc = service('old', { ipFamilies: undefined, clusterIPs: undefined, clusterIP: 'not-an-ip' });
  assert.deepEqual(servicePortsFromService(svc, DUAL, log), []);
  assert.deepEqual(log.lines.map((l) => [l.obj.field, l.obj.value]), [['spec.clusterIP', 'not-an-ip']]);
});

test('an unknown spec.type is named and served as upstream: not externally accessible, ports and addresses as given', () => {
  const log = recordingLogger();
  const [sp] = servicePortsFromService(service('odd', {
    type: 'Loadbalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 32000, externalIPs: ['192.0.2.1'],
    ports: [{ name: 'http', port: 80, nodePort: 30080 }],
  }), V4, log);
  assert.deepEqual(log.lines.map((l) => l.obj), [{ kind: 'Service', namespace: 'ns', name: 'odd', field: 'spec.type', value: 'Loadbalancer' }]);
  assert.match(log.lines[0].msg, /^unknown Service type; served as upstream serves it: not externally accessible/);
  assert.deepEqual([sp.externalPolicyLocal, sp.healthCheckNodePort, sp.nodePort, sp.externalIPs], [false, 0, 30080, ['192.0.2.1']]);
  const quiet = recordingLogger();
  for (const type of ['ClusterIP', 'NodePort', 'LoadBalancer', undefined]) {
    servicePortsFromService(service('ok', { type, ports: [{ name: 'http', port: 80, nodePort: 30080 }] }), V4, quiet);
  }
  assert.deepEqual(quiet.lines, [], 'the known types and the default say nothing');
});

test('an unknown traffic policy is named with its field and taken as Cluster, as upstream', () => {
  const log = recordingLogger();
  const [sp] = servicePortsFromService(service('pol', {
    type: 'NodePort', externalTrafficPolicy: 'local', internalTrafficPolicy: 'OnlyLocal', ports: [{ name: 'http', port: 80, nodePort: 30080 }],
  }), V4, log);
  assert.deepEqual([sp.externalPolicyLocal, sp.internalPolicyLocal], [false, false]);
  assert.deepEqual(log.lines, [
    { obj: { kind: 'Service', namespace: 'ns', name: 'pol', field: 'spec.externalTrafficPolicy', value: 'local' }, msg: 'unknown traffic policy; Cluster assumed, as upstream (which tests for Local only)' },
    { obj: { kind: 'Service', namespace: 'ns', name: 'pol', field: 'spec.internalTrafficPolicy', value: 'OnlyLocal' }, msg: 'unknown traffic policy; Cluster assumed, as upstream (which tests for Local only)' },
  ]);
  const quiet = recordingLogger();
  for (const p of ['Cluster', 'Local', undefined, ''] as const) {
    servicePortsFromService(service('ok', { type: 'NodePort', externalTrafficPolicy: p, internalTrafficPolicy: p, ports: [{ name: 'http', port: 80, nodePort: 30080 }] }), V4, quiet);
  }
  assert.deepEqual(quiet.lines, []);
});

test('shapes the types do not allow (nulls, strings for lists, wrong types) cost a warning, never an exception', () => {
  const broken: [string, (s: any) => void, number][] = [
    ['ports not a list', (s) => { s.spec.ports = 'http'; }, 0],
    ['a null port', (s) => { s.spec.ports = [null, { name: 'b', port: 81 }]; }, 1],
    ['a null ingress entry', (s) => { s.spec.type = 'LoadBalancer'; s.status = { loadBalancer: { ingress: [null, { ip: '203.0.113.9' }] } }; }, 1],
    ['source ranges with numbers', (s) => { s.spec.type = 'LoadBalancer'; s.spec.loadBalancerSourceRanges = [42, '10.0.0.0/8']; }, 1],
    ['externalIPs not a list', (s) => { s.spec.externalIPs = 'x'; }, 1],
    ['ipFamilies not a list', (s) => { s.spec.ipFamilies = 'IPv4'; }, 1],
    ['clusterIPs not a list', (s) => { s.spec.clusterIPs = 7; }, 1],
    ['externalIPs holding objects', (s) => { s.spec.externalIPs = [{ ip: '1.2.3.4' }, '1.2.3.5']; }, 1],
  ];
  for (const [what, breakIt, ports] of broken) {
    const svc: any = service('web', { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
    breakIt(svc);
    const log = recordingLogger();
    let sps: unknown[] = [];
    assert.doesNotThrow(() => { sps = servicePortsFromService(svc, V4, log); }, what);
    assert.equal(sps.length, ports, what);
  }
  const log = recordingLogger();
  const svc: any = service('web', { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
  svc.spec.ports = [null];
  servicePortsFromService(svc, V4, log);
  assert.match(JSON.stringify(log.lines), /port is not an object/);
});
