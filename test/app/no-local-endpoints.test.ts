// kubeproxy_sync_proxy_rules_no_local_endpoints_total against values computed by hand from upstream's
// nftables proxier (pkg/proxy/nftables/proxier.go, syncProxyRules): a ServicePort counts under
// "internal" when internalTrafficPolicy is Local, and under "external" when externalTrafficPolicy is
// Local on an externally reachable Service, only if it has a usable endpoint somewhere (hasEndpoints,
// from CategorizeEndpoints: ready, or serving and terminating) but no local one its policy would use
// (ready local endpoints, else serving-and-terminating local ones). The gauges are set after each
// successful sync, per ip_family, over every ServicePort; a failed sync leaves them alone.
import { silentLog } from '../../src/base/log';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { V1Service } from '@kubernetes/client-node';
import { SyncLoop } from '../../src/app/sync-loop';
import { ProxyState } from '../../src/core';
import type { ChangeSet, Proxier, ProxySnapshot, SyncResult } from '../../src/core/types';
import { ProxyHealth } from '../../src/health/proxy-health';
import { createProxyMetrics } from '../../src/metrics/proxy-metrics';
import { recordingLogger, service, slice, sliceEndpoint } from '../core/fixtures';

class SwitchableProxier implements Proxier {
  fail = false;
  async sync(_s: ProxySnapshot, _c: ChangeSet, full: boolean): Promise<SyncResult> {
    return this.fail ? { full, ok: false, error: new Error('refused') } : { full, ok: true };
  }
}

const NAME = 'kubeproxy_sync_proxy_rules_no_local_endpoints_total';
const remote = (ip: string) => sliceEndpoint(ip, { nodeName: 'node-b' });
const here = (ip: string) => sliceEndpoint(ip, { nodeName: 'node-a' });
const terminating = (ip: string, nodeName: string) =>
  sliceEndpoint(ip, { nodeName, conditions: { ready: false, serving: true, terminating: true } });
const notServing = (ip: string) => sliceEndpoint(ip, { nodeName: 'node-b', conditions: { ready: false, serving: false, terminating: true } });

function setup() {
  const state = new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4', 'IPv6'], log: recordingLogger(), startTime: new Date(0) });
  const registry = new Registry();
  const proxier = new SwitchableProxier();
  const loop = new SyncLoop({
    state, proxier, families: ['IPv4', 'IPv6'], metrics: createProxyMetrics(registry, { processMetrics: false }),
    health: new ProxyHealth(60_000, { wall: () => new Date(1_000_000) }), log: silentLog, clock: { wall: () => new Date(1_000_000) },
  });
  let n = 0;
  const add = (name: string, spec: Partial<NonNullable<V1Service['spec']>>, eps: ReturnType<typeof sliceEndpoint>[]) => {
    n++;
    state.onService('add', service(name, { clusterIP: `10.96.0.${n}`, clusterIPs: [`10.96.0.${n}`], ...spec }));
    if (eps.length > 0) state.onEndpointSlice('add', slice(`${name}-1`, name, eps));
  };
  const gauge = async (family: string, policy: string): Promise<number | undefined> => {
    const m = await registry.getSingleMetric(NAME)!.get();
    return m.values.find((v) => v.labels.ip_family === family && v.labels.traffic_policy === policy)?.value;
  };
  return { state, proxier, loop, add, gauge };
}

const nodePort = (port: number, extra: Record<string, unknown> = {}) => ({
  type: 'NodePort' as const, ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: port }], ...extra,
});

describe('no_local_endpoints_total (upstream nftables proxier syncProxyRules)', () => {
  it('counts what upstream counts for a set of Services', async () => {
    const t = setup();
    t.add('itp-local-remote', { internalTrafficPolicy: 'Local' }, [remote('10.1.0.1')]); // internal +1
    t.add('itp-local-no-endpoints', { internalTrafficPolicy: 'Local' }, []); // rejected, not counted
    t.add('itp-local-here', { internalTrafficPolicy: 'Local' }, [here('10.1.0.2')]); // has a local endpoint
    t.add('itp-local-not-serving', { internalTrafficPolicy: 'Local' }, [notServing('10.1.0.3')]); // nothing usable: rejected
    t.add('etp-local-nodeport-remote', nodePort(30001, { externalTrafficPolicy: 'Local' }), [remote('10.1.0.4')]); // external +1
    t.add('etp-local-clusterip', { externalTrafficPolicy: 'Local' }, [remote('10.1.0.5')]); // not externally reachable
    t.add('etp-local-lb-terminating-here', {
      type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30002 }],
    }, [remote('10.1.0.6'), terminating('10.1.0.7', 'node-a')]); // the local serving-terminating fallback is used
    t.add('etp-local-terminating-remote', nodePort(30003, { externalTrafficPolicy: 'Local' }), [terminating('10.1.0.8', 'node-b')]); // external +1
    t.add('both-local-remote', nodePort(30004, { externalTrafficPolicy: 'Local', internalTrafficPolicy: 'Local' }), [remote('10.1.0.9')]); // +1 each
    t.add('etp-local-two-ports', {
      type: 'NodePort', externalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30005 }, { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30006 }],
    }, []); // two ServicePorts, endpoints below
    t.state.onEndpointSlice('add', slice('etp-local-two-ports-1', 'etp-local-two-ports', [remote('10.1.0.10')], {
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'dns', port: 5353, protocol: 'UDP' }],
    })); // external +2
    t.add('cluster-policies-remote', nodePort(30007), [remote('10.1.0.11')]); // Cluster policies: never counted
    assert.equal(await t.loop.run('requested'), true);
    assert.equal(await t.gauge('IPv4', 'internal'), 2);
    assert.equal(await t.gauge('IPv4', 'external'), 5);
    assert.equal(await t.gauge('IPv6', 'internal'), 0);
    assert.equal(await t.gauge('IPv6', 'external'), 0);
  });

  it('recomputes after each successful sync and keeps the last values through a failed one', async () => {
    const t = setup();
    t.add('a', { internalTrafficPolicy: 'Local' }, [remote('10.1.0.1')]);
    t.add('b', nodePort(30001, { externalTrafficPolicy: 'Local' }), [remote('10.1.0.2')]);
    await t.loop.run('requested');
    assert.deepEqual([await t.gauge('IPv4', 'internal'), await t.gauge('IPv4', 'external')], [1, 1]);
    // a gains a local endpoint; b loses every endpoint (then it is rejected, not dropped).
    t.state.onEndpointSlice('update', slice('a-1', 'a', [remote('10.1.0.1'), here('10.1.0.3')]));
    t.state.onEndpointSlice('delete', slice('b-1', 'b', [remote('10.1.0.2')]));
    t.proxier.fail = true;
    assert.equal(await t.loop.run('requested'), false);
    assert.deepEqual([await t.gauge('IPv4', 'internal'), await t.gauge('IPv4', 'external')], [1, 1], 'a failed sync sets nothing');
    t.proxier.fail = false;
    assert.equal(await t.loop.run('retry'), true);
    assert.deepEqual([await t.gauge('IPv4', 'internal'), await t.gauge('IPv4', 'external')], [0, 0]);
  });

  it('labels an IPv6 Service\'s count ipv6 only', async () => {
    const t = setup();
    t.state.onService('add', service('v6', { clusterIP: 'fd00::10', clusterIPs: ['fd00::10'], ipFamilies: ['IPv6'], internalTrafficPolicy: 'Local' }));
    t.state.onEndpointSlice('add', slice('v6-1', 'v6', [remote('fd00:1::1')], { addressType: 'IPv6' }));
    await t.loop.run('requested');
    assert.equal(await t.gauge('IPv6', 'internal'), 1);
    assert.equal(await t.gauge('IPv4', 'internal'), 0);
  });
});
