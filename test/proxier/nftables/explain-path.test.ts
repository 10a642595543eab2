// explainPath: addresses, policies and the walk of a new connection, one case per path variant;
// and every chain a path names exists in what the proxy compiles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { selectEndpoints } from '../../../src/core/endpoint-selection';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import type { ContextInputs } from '../../../src/proxier/nftables/context';
import { chainsNamed, compiledChainNames, explainPath, type Client, type ConnectionPath, type PathExplanation } from '../../../src/proxier/nftables/explain-path';
import { serviceChainNames } from '../../../src/proxier/nftables/names';
import { ctx, ep, sp } from './fixtures';

const NODE = { nodeName: 'node1', zone: '' };
const LOCAL_ADDRS = ['127.0.0.1', '192.168.0.2', '10.0.1.1', 'fd00::2'];
const local = (ip: string, port = 80): Endpoint => ep(ip, port, { isLocal: true, nodeName: 'node1' });

interface Run {
  x: PathExplanation;
  svc: ServicePort;
  eps: Endpoint[];
  inputs: Partial<ContextInputs>;
}
const runs: Run[] = [];

function explain(svc: ServicePort, eps: Endpoint[], inputs: Partial<ContextInputs> = {}, family: 'ip' | 'ip6' = 'ip'): PathExplanation {
  const x = explainPath({ sp: svc, selection: selectEndpoints(eps, svc, NODE), ctx: ctx(inputs, family), localAddresses: LOCAL_ADDRS });
  runs.push({ x, svc, eps, inputs });
  return x;
}

function path(x: PathExplanation, kind: ConnectionPath['kind'], client: Client, source?: ConnectionPath['source']): ConnectionPath {
  const p = x.paths.find((q) => q.kind === kind && q.client === client && q.source === source);
  assert.ok(p, `no ${kind} path for ${client} ${source ?? ''}: ${x.paths.map((q) => `${q.kind}/${q.client}/${q.source}`).join(' ')}`);
  return p;
}

const chainsOf = (p: ConnectionPath) => p.steps.map((s) => s.chain);
const stepIn = (p: ConnectionPath, chain: string) => {
  const s = p.steps.find((q) => q.chain === chain);
  assert.ok(s, `no step in ${chain}: ${chainsOf(p).join(' > ')}`);
  return s;
};
const lastStepIn = (p: ConnectionPath, chain: string) => {
  const s = [...p.steps].reverse().find((q) => q.chain === chain);
  assert.ok(s, `no step in ${chain}: ${chainsOf(p).join(' > ')}`);
  return s;
};

test('ClusterIP, Cluster policy, 2 endpoints: a pod keeps its source, an outside client is masqueraded', () => {
  const x = explain(sp('web'), [ep('10.180.0.1'), ep('10.180.0.2')]);
  assert.deepEqual(x.addresses, [{ kind: 'ClusterIP', ip: '172.30.0.41', port: 80, protocol: 'TCP' }]);
  assert.deepEqual(x.policies, { internalTrafficPolicy: 'Cluster', masqueradeAll: false, detectLocal: 'source in 10.0.0.0/16' });
  const pod = path(x, 'ClusterIP', 'pod');
  assert.deepEqual(chainsOf(pod), ['nat-prerouting', 'services', 'cluster-ip-traffic', 'cluster-ip-traffic', 'select-endpoint', 'nat-postrouting', 'masquerading']);
  assert.match(stepIn(pod, 'services').rule, /@cluster-ip-ports goto cluster-ip-traffic$/);
  assert.match(stepIn(pod, 'select-endpoint').rule, /numgen random mod 2 map @endpoints-2$/);
  assert.equal(pod.outcome, 'dnat');
  assert.deepEqual(pod.endpoints, ['10.180.0.1:80', '10.180.0.2:80']);
  assert.equal(pod.masquerade, false);
  assert.equal(pod.summary, 'DNAT to 1 of 2 endpoints, source kept');
  const outside = path(x, 'ClusterIP', 'outside');
  assert.equal(outside.masquerade, true);
  assert.match(outside.steps[2].verdict, /^jump mark-for-masquerade/);
  assert.equal(outside.steps.at(-1)!.rule, 'masquerade fully-random');
});

test('more than 4 endpoints: select-endpoint sends the destination to select-endpoint-6 by its count-bit set', () => {
  const x = explain(sp('big'), Array.from({ length: 6 }, (_, i) => ep(`10.180.0.${i + 1}`)));
  const pod = path(x, 'ClusterIP', 'pod');
  assert.match(stepIn(pod, 'select-endpoint').rule, /@endpoints-over-4-bit-1 goto select-endpoint-6$/);
  assert.equal(stepIn(pod, 'select-endpoint').verdict, 'in @endpoints-over-4-bit-1: goto select-endpoint-6');
  assert.match(stepIn(pod, 'select-endpoint-6').rule, /numgen random mod 6 map @endpoints-6$/);
  assert.equal(pod.endpoints?.length, 6);
});

test('no endpoints: the ClusterIP and the NodePort are rejected in the nat hook, after the dispatch', () => {
  const x = explain(sp('empty', { nodePort: 30080 }), []);
  const cip = path(x, 'ClusterIP', 'pod');
  assert.equal(cip.outcome, 'reject');
  assert.deepEqual(chainsOf(cip), ['nat-prerouting', 'services', 'nat-prerouting', 'no-service-checks', 'service-endpoints-check', 'service-endpoints-check', 'reject-chain']);
  assert.equal(cip.steps[0].hook, 'nat prerouting');
  assert.equal(cip.steps[2].rule, 'jump no-service-checks');
  assert.equal(cip.steps[3].rule, 'jump service-endpoints-check');
  assert.match(stepIn(cip, 'service-endpoints-check').rule, /!= @no-endpoint-services return$/);
  assert.equal(lastStepIn(cip, 'service-endpoints-check').rule, 'goto reject-chain');
  assert.equal(cip.summary, 'rejected: no endpoints');
  const np = path(x, 'NodePort', 'outside');
  assert.equal(np.outcome, 'reject');
  assert.deepEqual(chainsOf(np), ['nat-prerouting', 'services', 'nat-prerouting', 'no-service-checks', 'nodeport-endpoints-check', 'nodeport-endpoints-check', 'reject-chain']);
  assert.deepEqual(x.addresses.filter((a) => a.kind === 'NodePort').map((a) => a.ip), ['192.168.0.2', '10.0.1.1']);
});

test('externalTrafficPolicy Local with a local endpoint: outside clients reach it with their source, pods every endpoint', () => {
  const x = explain(sp('loc', { nodePort: 30080, externalPolicyLocal: true }), [local('10.180.0.1'), ep('10.180.0.2')]);
  assert.equal(x.policies.externalTrafficPolicy, 'Local');
  const outside = path(x, 'NodePort', 'outside');
  assert.deepEqual(chainsOf(outside).slice(0, 5), ['nat-prerouting', 'services', 'nodeport-services', 'nodeport-local-traffic', 'select-nodeport-local-endpoint']);
  assert.deepEqual(outside.endpoints, ['10.180.0.1:80']);
  assert.equal(outside.masquerade, false);
  const pod = path(x, 'NodePort', 'pod');
  assert.match(stepIn(pod, 'nodeport-local-traffic').rule, /short-circuit pod traffic/);
  assert.deepEqual(pod.endpoints, ['10.180.0.1:80', '10.180.0.2:80']);
});

test('externalTrafficPolicy Local without a local endpoint: outside clients are dropped in filter input, pods still served', () => {
  const x = explain(sp('noloc', { nodePort: 30080, externalPolicyLocal: true }), [ep('10.180.0.2')]);
  const outside = path(x, 'NodePort', 'outside');
  assert.equal(outside.outcome, 'drop');
  assert.equal(outside.summary, 'dropped: no endpoint on this node (Local policy)');
  assert.match(stepIn(outside, 'select-nodeport-local-endpoint').verdict, /no DNAT/);
  assert.match(lastStepIn(outside, 'nodeport-endpoints-check').rule, /@no-local-endpoint-nodeports drop$/);
  assert.equal(path(x, 'NodePort', 'pod').outcome, 'dnat');
});

test('externalTrafficPolicy Cluster: NodePort traffic is masqueraded whoever sends it', () => {
  const x = explain(sp('np', { nodePort: 30080 }), [ep('10.180.0.1')]);
  for (const client of ['pod', 'outside'] as const) {
    const p = path(x, 'NodePort', client);
    assert.deepEqual(chainsOf(p).slice(1, 5), ['services', 'nodeport-services', 'nodeport-traffic', 'nodeport-traffic']);
    assert.equal(p.masquerade, true, client);
    assert.match(stepIn(p, 'select-nodeport-endpoint').rule, /map @nodeport-endpoints-1$/);
  }
});

test('internalTrafficPolicy Local: the ClusterIP sends to this node\'s endpoints; none here drops', () => {
  const withLocal = explain(sp('itl', { internalPolicyLocal: true }), [local('10.180.0.1'), ep('10.180.0.2')]);
  assert.equal(withLocal.policies.internalTrafficPolicy, 'Local');
  assert.deepEqual(path(withLocal, 'ClusterIP', 'pod').endpoints, ['10.180.0.1:80']);
  const none = explain(sp('itl2', { internalPolicyLocal: true }), [ep('10.180.0.2')]);
  const p = path(none, 'ClusterIP', 'pod');
  assert.equal(p.outcome, 'drop');
  assert.match(lastStepIn(p, 'service-endpoints-check').rule, /@no-local-endpoint-services drop$/);
  assert.equal(p.steps[0].hook, 'nat prerouting');
});

test('session affinity: the Service\'s own chain, a client with a record goes back to its endpoint', () => {
  const svc = sp('aff', { affinityTimeoutSeconds: 600 });
  const x = explain(svc, [ep('10.180.0.1'), ep('10.180.0.2')]);
  assert.equal(x.policies.affinityTimeoutSeconds, 600);
  const chain = serviceChainNames(svc).cluster;
  const pod = path(x, 'ClusterIP', 'pod');
  assert.match(stepIn(pod, 'services').rule, /@other-service-ports goto other-services$/);
  assert.match(stepIn(pod, 'other-services').rule, /vmap @service-ips$/);
  assert.equal(stepIn(pod, 'other-services').verdict, `goto ${chain}`);
  const own = pod.steps.filter((s) => s.chain === chain);
  assert.equal(own.length, 3);
  assert.match(own[1].verdict, /record \(timeout 600s\)/);
  assert.match(own[2].rule, /^numgen random mod 2 == 0 .*update @affinity/);
  assert.deepEqual(pod.endpoints, ['10.180.0.1:80', '10.180.0.2:80']);
  assert.equal(pod.masquerade, false);
  assert.equal(path(x, 'ClusterIP', 'outside').masquerade, true);
});

test('loadBalancerSourceRanges: the firewall runs before the nat hook; other sources are dropped', () => {
  const svc = sp('lb', { loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24'] });
  const x = explain(svc, [ep('10.180.0.1')]);
  assert.deepEqual(x.addresses[1], { kind: 'LoadBalancer', ip: '5.6.7.8', port: 80, protocol: 'TCP', sourceRanges: ['203.0.113.0/24'] });
  const fw = serviceChainNames(svc).firewall;
  const allowed = path(x, 'LoadBalancer', 'outside', 'allowed');
  assert.deepEqual(chainsOf(allowed).slice(0, 4), ['filter-prerouting', 'firewall-check', fw, 'nat-prerouting']);
  assert.equal(stepIn(allowed, fw).rule, 'ip saddr 203.0.113.0/24 return');
  assert.equal(allowed.outcome, 'dnat');
  assert.match(stepIn(allowed, 'other-services').rule, /@external-ports goto external-traffic$/);
  const denied = path(x, 'LoadBalancer', 'outside', 'not allowed');
  assert.equal(denied.outcome, 'drop');
  assert.deepEqual(chainsOf(denied), ['filter-prerouting', 'firewall-check', fw]);
  assert.equal(denied.summary, 'dropped: source not in loadBalancerSourceRanges');
  assert.equal(path(x, 'ClusterIP', 'outside').source, undefined, 'the ClusterIP has no firewall');
});

test('masqueradeAll: a pod\'s ClusterIP connection is masqueraded too', () => {
  const x = explain(sp('all'), [ep('10.180.0.1')], { masqueradeAll: true });
  const pod = path(x, 'ClusterIP', 'pod');
  assert.equal(pod.masquerade, true);
  assert.equal(stepIn(pod, 'cluster-ip-traffic').rule, 'jump mark-for-masquerade');
  assert.equal(x.policies.masqueradeAll, true);
});

test('detect-local None: no masquerade rule, so no ClusterIP client is masqueraded', () => {
  const x = explain(sp('none'), [ep('10.180.0.1')], { localDetector: { mode: 'None' } });
  assert.equal(x.policies.detectLocal, 'none');
  const outside = path(x, 'ClusterIP', 'outside');
  assert.equal(outside.masquerade, false);
  assert.equal(stepIn(outside, 'cluster-ip-traffic').rule, '(no masquerade rule: detect-local is None)');
});

test('nodePortAddresses CIDRs: only this node\'s addresses inside them accept the NodePort', () => {
  const x = explain(sp('cidr', { nodePort: 30080 }), [ep('10.180.0.1')], { nodePortAddresses: ['192.168.0.0/24'] });
  const np = x.addresses.filter((a) => a.kind === 'NodePort');
  assert.deepEqual(np.map((a) => a.ip), ['192.168.0.2']);
  assert.match(np[0].note ?? '', /192\.168\.0\.0\/24/);
  assert.match(stepIn(path(x, 'NodePort', 'outside'), 'services').rule, /@nodeport-ips fib daddr type local goto nodeport-services$/);
});

test('external IPs: dispatched through external-ports, no firewall', () => {
  const x = explain(sp('ext', { externalIPs: ['192.168.0.2', 'fd00::9'] }), [ep('10.180.0.1')]);
  assert.deepEqual(x.addresses.map((a) => `${a.kind} ${a.ip}`), ['ClusterIP 172.30.0.41', 'ExternalIP 192.168.0.2']);
  assert.equal(path(x, 'ExternalIP', 'outside').masquerade, true);
});

test('without endpoints an external IP is rejected in the nat hook, this node\'s or one routed through it', () => {
  const x = explain(sp('extnone', { externalIPs: ['192.168.0.2', '192.168.7.7'] }), []);
  const mine = x.paths.find((p) => p.ip === '192.168.0.2' && p.client === 'outside')!;
  const routed = x.paths.find((p) => p.ip === '192.168.7.7' && p.client === 'outside')!;
  for (const p of [mine, routed]) assert.deepEqual([p.outcome, p.steps[0].hook, p.steps.at(-1)!.chain], ['reject', 'nat prerouting', 'reject-chain']);
});

test('node addresses unknown: the NodePort is listed on *, with what nodePortAddresses says', () => {
  const x = explainPath({ sp: sp('star', { nodePort: 30080 }), selection: selectEndpoints([ep('10.180.0.1')], sp('star', { nodePort: 30080 }), NODE), ctx: ctx() });
  assert.deepEqual(x.addresses[1], { kind: 'NodePort', ip: '*', port: 30080, protocol: 'TCP', note: 'every local IPv4 address but loopback' });
  assert.equal(path(x, 'NodePort', 'outside').outcome, 'dnat');
});

test('IPv6: the ip6 table\'s paths', () => {
  const svc = sp('v6', { key: 'ns1/v6:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::41' });
  const x = explain(svc, [ep('fd00:10::1')], {}, 'ip6');
  const pod = path(x, 'ClusterIP', 'pod');
  assert.deepEqual(pod.endpoints, ['[fd00:10::1]:80']);
  assert.equal(x.policies.detectLocal, 'source in fd00:10::/48');
});

test('a ServicePort the proxy refuses: the reason, no paths', () => {
  const x = explainPath({ sp: sp('bad', { clusterIP: 'fd00::1' }), selection: undefined, ctx: ctx() });
  assert.match(x.refused ?? '', /clusterIP: "fd00::1" is not an address of family ip/);
  assert.deepEqual(x.paths, []);
});

function rng(seed: number): () => number {
  let v = seed >>> 0;
  return () => {
    v = (v * 1664525 + 1013904223) >>> 0;
    return v / 2 ** 32;
  };
}

/** What a connection to `kind` from `client` must end in, from the selection alone (upstream's rules). */
function expected(svc: ServicePort, sel: ReturnType<typeof selectEndpoints>, kind: ConnectionPath['kind'], client: Client, detector: boolean, masqAll: boolean) {
  const unique = (eps: readonly Endpoint[]) => [...new Set(eps.map((e) => `${e.ip}:${e.port}`))].sort();
  const hasEndpoints = sel.hasAny || sel.cluster.length > 0 || sel.local.length > 0;
  if (kind === 'ClusterIP') {
    const internal = unique(svc.internalPolicyLocal ? sel.local : sel.cluster);
    if (internal.length === 0) return { outcome: hasEndpoints && svc.internalPolicyLocal ? 'drop' : 'reject' };
    return { outcome: 'dnat', endpoints: internal, masquerade: masqAll || (detector && client === 'outside') };
  }
  const podShortCircuit = client === 'pod' && detector && svc.externalPolicyLocal && sel.cluster.length > 0;
  const external = unique(svc.externalPolicyLocal && !podShortCircuit ? sel.local : sel.cluster);
  if (external.length === 0) return { outcome: hasEndpoints && svc.externalPolicyLocal ? 'drop' : 'reject' };
  return { outcome: 'dnat', endpoints: external, masquerade: !svc.externalPolicyLocal };
}

test('over 1,500 generated ServicePorts every path ends as the selection says, through chains the proxy compiles', () => {
  const r = rng(14);
  const seen = new Set<string>();
  for (let i = 0; i < 1500; i++) {
    const eps = Array.from({ length: Math.floor(r() * 8) }, (_, j) => {
      const state = Math.floor(r() * 3);
      return ep(`10.180.${j}.1`, 8080, {
        ready: state === 0, serving: state < 2, terminating: state === 1, isLocal: r() < 0.4, nodeName: 'node1',
      });
    });
    const svc = sp(`g${i}`, {
      nodePort: r() < 0.5 ? 30080 : 0,
      externalIPs: r() < 0.3 ? ['192.168.7.7'] : [],
      loadBalancerIPs: r() < 0.4 ? ['5.6.7.8'] : [],
      loadBalancerSourceRanges: r() < 0.5 ? ['203.0.113.0/24'] : [],
      affinityTimeoutSeconds: r() < 0.3 ? 600 : 0,
      internalPolicyLocal: r() < 0.3,
      externalPolicyLocal: r() < 0.5,
    });
    const detector = r() < 0.8;
    const masqAll = r() < 0.2;
    const inputs: Partial<ContextInputs> = { masqueradeAll: masqAll, ...(detector ? {} : { localDetector: { mode: 'None' } }) };
    const sel = selectEndpoints(eps, svc, NODE);
    const context = ctx(inputs);
    const x = explainPath({ sp: svc, selection: sel, ctx: context, localAddresses: LOCAL_ADDRS });
    const compiled = new Set(compiledChainNames(svc, sel, context));
    for (const name of chainsNamed(x.paths)) assert.ok(compiled.has(name), `case ${i}: ${name} is not compiled`);
    for (const p of x.paths) {
      const tag = `case ${i} ${p.kind} ${p.client} ${p.source ?? ''}: ${JSON.stringify({ svc, eps, detector, masqAll })}`;
      if (p.source === 'not allowed') {
        assert.equal(p.outcome, 'drop', tag);
        continue;
      }
      const want = expected(svc, sel, p.kind, p.client, detector, masqAll);
      assert.equal(p.outcome, want.outcome, tag);
      if (want.outcome === 'dnat') {
        assert.deepEqual([...(p.endpoints ?? [])].sort(), want.endpoints, tag);
        // Affinity NodePorts of Cluster policy pass external- (masquerade) then service- (whose rule names the ClusterIP).
        if (p.kind === 'ClusterIP' || !(svc.externalPolicyLocal)) assert.equal(p.masquerade, want.masquerade, tag);
        else assert.equal(p.masquerade, false, tag);
      }
      seen.add(`${p.kind}/${p.outcome}/${svc.affinityTimeoutSeconds > 0}`);
    }
  }
  for (const kind of ['ClusterIP', 'NodePort', 'ExternalIP', 'LoadBalancer']) {
    for (const outcome of ['dnat', 'reject', 'drop']) {
      for (const affinity of [false, true]) assert.ok(seen.has(`${kind}/${outcome}/${affinity}`), `generated cases cover ${kind} ${outcome} affinity=${affinity}`);
    }
  }
});

test('every chain a path names exists in the compiled table (base and the ServicePort\'s own)', () => {
  assert.ok(runs.length >= 14, `cases ran first (${runs.length})`);
  for (const { x, svc, eps, inputs } of runs) {
    const family = svc.family === 'IPv6' ? 'ip6' : 'ip';
    const compiled = new Set(compiledChainNames(svc, selectEndpoints(eps, svc, NODE), ctx(inputs, family)));
    for (const name of chainsNamed(x.paths)) assert.ok(compiled.has(name), `${svc.key}: explain names ${name}, which the proxy does not compile`);
  }
});
