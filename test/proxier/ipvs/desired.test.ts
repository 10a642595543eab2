// The IPVS mode's desired state for every Service shape, and the node addresses NodePorts use.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { selectEndpoints } from '../../../src/core/endpoint-selection';
import type { SelectedEndpoints, ServicePort } from '../../../src/core/types';
import { desiredServicePort, nodeAddresses, type DesiredContext } from '../../../src/proxier/ipvs';
import { CidrSet } from '../../../src/proxier/ipvs/addr';
import { ep, selected, sp } from './helpers';

const ctx = (over: Partial<DesiredContext> = {}): DesiredContext => ({
  scheduler: 'rr', nodePortIPs: ['10.0.0.1', '10.0.0.2', 'fd00::1'], localAddresses: new Set(['10.0.0.1', '10.0.0.2', 'fd00::1']),
  excluded: () => false, ...over,
});

/** `TCP 10.96.0.10:80 rr f0 t0/32 -> 10.1.0.5:8080` per virtual service. */
function text(s: ServicePort, eps: SelectedEndpoints | undefined, c = ctx()): string[] {
  const d = desiredServicePort(s, eps, c);
  return [...d.services.values()].map(({ service: v, dests }) => {
    const ds = dests.map((x) => `${x.address}:${x.port}${x.weight === 1 && x.forward === 'masq' ? '' : ` w${x.weight} ${x.forward}`}`).join(' ');
    return `${v.protocol} ${v.address}:${v.port} ${v.scheduler} f${v.flags} t${v.timeout}/${v.prefixLength} -> ${ds}`;
  });
}

describe('desired state of one ServicePort', () => {
  const two = selected([ep('10.1.0.5'), ep('10.1.0.6', 8080, { isLocal: true })]);

  it('ClusterIP: one virtual service, its address bound, every cluster endpoint (weight 1, masq)', () => {
    assert.deepEqual(text(sp('a'), two), ['TCP 10.96.0.10:80 rr f0 t0/32 -> 10.1.0.5:8080 10.1.0.6:8080']);
    assert.deepEqual(desiredServicePort(sp('a'), two, ctx()).bind, ['10.96.0.10']);
  });

  it('a refused ClusterIP (another ServicePort owns it and the port): no virtual service, not bound; its other addresses kept', () => {
    const refused = sp('a', { clusterIPRefused: true, nodePort: 30080, externalIPs: ['203.0.113.7'] });
    const d = desiredServicePort(refused, two, ctx());
    assert.deepEqual([...d.services.keys()], ['TCP 203.0.113.7:80', 'TCP 10.0.0.1:30080', 'TCP 10.0.0.2:30080']);
    assert.deepEqual(d.bind, ['203.0.113.7']);
    assert.deepEqual(d.skipped, [], 'refused, not skipped: nothing to warn about per ServicePort');
  });

  it('NodePort: one virtual service per node IP of its family, none bound', () => {
    assert.deepEqual(text(sp('a', { nodePort: 30080 }), two).slice(1), [
      'TCP 10.0.0.1:30080 rr f0 t0/32 -> 10.1.0.5:8080 10.1.0.6:8080',
      'TCP 10.0.0.2:30080 rr f0 t0/32 -> 10.1.0.5:8080 10.1.0.6:8080',
    ]);
    assert.deepEqual(desiredServicePort(sp('a', { nodePort: 30080 }), two, ctx()).bind, ['10.96.0.10']);
  });

  it('externalIPs and LoadBalancer IPs: a virtual service each, bound unless the node has the address', () => {
    const s = sp('a', { externalIPs: ['192.0.2.1', '10.0.0.2'], loadBalancerIPs: ['198.51.100.7'] });
    assert.deepEqual(text(s, two).map((l) => l.split(' ')[1]), ['10.96.0.10:80', '192.0.2.1:80', '10.0.0.2:80', '198.51.100.7:80']);
    assert.deepEqual(desiredServicePort(s, two, ctx()).bind, ['10.96.0.10', '192.0.2.1', '198.51.100.7']);
  });

  it('ClientIP affinity: persistence with the timeout and one-address granularity', () => {
    assert.deepEqual(text(sp('a', { affinityTimeoutSeconds: 10800 }), two), ['TCP 10.96.0.10:80 rr f1 t10800/32 -> 10.1.0.5:8080 10.1.0.6:8080']);
    assert.deepEqual(text(sp('a', { family: 'IPv6', affinityTimeoutSeconds: 60 }), selected([ep('fd00:1::5')])),
      ['TCP fd00:96::10:80 rr f1 t60/128 -> fd00:1::5:8080']);
  });

  it('mh sets the source-port hashing flag, as upstream', () => {
    assert.deepEqual(text(sp('a'), two, ctx({ scheduler: 'mh' })), ['TCP 10.96.0.10:80 mh f16 t0/32 -> 10.1.0.5:8080 10.1.0.6:8080']);
  });

  it('external Local policy: external virtual services get the local endpoints, the ClusterIP the cluster ones', () => {
    const s = sp('a', { nodePort: 30080, externalIPs: ['192.0.2.1'], externalPolicyLocal: true });
    assert.deepEqual(text(s, two), [
      'TCP 10.96.0.10:80 rr f0 t0/32 -> 10.1.0.5:8080 10.1.0.6:8080',
      'TCP 192.0.2.1:80 rr f0 t0/32 -> 10.1.0.6:8080',
      'TCP 10.0.0.1:30080 rr f0 t0/32 -> 10.1.0.6:8080',
      'TCP 10.0.0.2:30080 rr f0 t0/32 -> 10.1.0.6:8080',
    ]);
  });

  it('internal Local policy: the ClusterIP gets the local endpoints', () => {
    assert.deepEqual(text(sp('a', { internalPolicyLocal: true }), two), ['TCP 10.96.0.10:80 rr f0 t0/32 -> 10.1.0.6:8080']);
  });

  it('a Local policy with no local endpoint falls back to the cluster ones (upstream syncEndpoint, PR 97081)', () => {
    const remote = selected([ep('10.1.0.5')]);
    assert.deepEqual(text(sp('a', { nodePort: 30080, externalPolicyLocal: true }), remote).slice(1, 2), ['TCP 10.0.0.1:30080 rr f0 t0/32 -> 10.1.0.5:8080']);
    // Core's selection leaves `cluster` empty when nothing uses Cluster policy: then nothing at all.
    const s = sp('a', { internalPolicyLocal: true });
    assert.deepEqual(text(s, selectEndpoints([ep('10.1.0.5')], s, { nodeName: 'node1', zone: '' })), ['TCP 10.96.0.10:80 rr f0 t0/32 -> ']);
  });

  it('dual-stack: the IPv6 ServicePort gets IPv6 node IPs only, family 6, prefix 128', () => {
    const s = sp('a', { family: 'IPv6', nodePort: 30080 });
    const d = desiredServicePort(s, selected([ep('fd00:1::5')]), ctx());
    assert.deepEqual([...d.services.values()].map((v) => [v.service.address, v.service.family, v.service.prefixLength, v.dests[0].family]),
      [['fd00:96::10', 6, 128, 6], ['fd00::1', 6, 128, 6]]);
  });

  it('no endpoints: the virtual services exist with no real server', () => {
    assert.deepEqual(text(sp('a', { loadBalancerIPs: ['198.51.100.7'] }), undefined), ['TCP 10.96.0.10:80 rr f0 t0/32 -> ', 'TCP 198.51.100.7:80 rr f0 t0/32 -> ']);
  });

  it('terminating fallback: serving terminating endpoints when none is ready (core selection)', () => {
    const s = sp('a');
    const eps = [ep('10.1.0.5', 8080, { ready: false, serving: true, terminating: true }), ep('10.1.0.6', 8080, { ready: false, serving: false, terminating: true })];
    assert.deepEqual(text(s, selectEndpoints(eps, s, { nodeName: 'node1', zone: '' })), ['TCP 10.96.0.10:80 rr f0 t0/32 -> 10.1.0.5:8080']);
  });

  it('excludeCIDRs: addresses in them are neither served nor bound, and are reported', () => {
    const c = ctx({ excluded: (ip) => new CidrSet(['192.0.2.0/24', '10.0.0.2/32']).has(ip) });
    const d = desiredServicePort(sp('a', { externalIPs: ['192.0.2.1'], nodePort: 30080 }), two, c);
    assert.deepEqual([...d.services.values()].map((v) => v.service.address), ['10.96.0.10', '10.0.0.1']);
    assert.deepEqual(d.skipped, ['192.0.2.1', '10.0.0.2']);
  });

  it('IPv6 addresses are compared in canonical form', () => {
    const d = desiredServicePort(sp('a', { family: 'IPv6', clusterIP: 'FD00:96:0::0010' }), selected([ep('FD00:1::0:5')]), ctx());
    const [v] = d.services.values();
    assert.deepEqual([v.key, v.dests[0].address, d.bind[0]], ['TCP [fd00:96::10]:80', 'fd00:1::5', 'fd00:96::10']);
  });
});

describe('node addresses', () => {
  const dump = [
    { linkIndex: 1, family: 4 as const, address: '127.0.0.1', prefixLength: 8 },
    { linkIndex: 2, family: 4 as const, address: '10.0.0.1', prefixLength: 24 },
    { linkIndex: 2, family: 4 as const, address: '192.168.5.1', prefixLength: 24 },
    { linkIndex: 2, family: 6 as const, address: 'fd00::1', prefixLength: 64 },
    { linkIndex: 2, family: 6 as const, address: 'fe80::1', prefixLength: 64 },
    { linkIndex: 3, family: 4 as const, address: '10.96.0.10', prefixLength: 32 },
  ];

  it('nodePortAddresses empty: every address but kube-ipvs0\'s, loopback and IPv6 link-local', () => {
    assert.deepEqual(nodeAddresses(dump, 3, [], [], ['IPv4', 'IPv6']), { local: ['10.0.0.1', '192.168.5.1', 'fd00::1'], nodePortIPs: ['10.0.0.1', '192.168.5.1', 'fd00::1'] });
  });

  it('CIDRs select per family; a family with no CIDR serves on every address of it', () => {
    assert.deepEqual(nodeAddresses(dump, 3, ['192.168.0.0/16'], [], ['IPv4', 'IPv6']).nodePortIPs, ['192.168.5.1', 'fd00::1']);
  });

  it('primary: the node\'s primary IP of each family', () => {
    assert.deepEqual(nodeAddresses(dump, 3, ['primary'], ['10.0.0.1', 'fd00::1'], ['IPv4', 'IPv6']).nodePortIPs, ['10.0.0.1', 'fd00::1']);
    assert.deepEqual(nodeAddresses(dump, 3, ['primary'], ['10.0.0.1'], ['IPv4']).nodePortIPs, ['10.0.0.1']);
  });
});
