// ServiceCIDRs through the whole proxy: while a ServiceCIDR covers the ClusterIP range, traffic to an
// address in it that no Service has is dropped on the node; before it exists and after it is deleted,
// that address is routed like any other (out of the node's default route, back to the client, which
// does not forward). The probe times out either way, so the client counts what the node sends back to
// it: that is what tells "routed" from "dropped".
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, Cluster, eventually, ruleset, startCluster, waitForAnswer } from './harness';
import { endpointSlice, service, serviceCIDR } from './fixtures';

const VIP = '100.100.0.10';
const VIP6 = '2001:db8:100::10';
/** Inside the ServiceCIDR's ranges; no Service has them. */
const FREE = '100.100.0.77';
const FREE6 = '2001:db8:100::77';
/** Routed to the node by the client as well, but outside every ServiceCIDR. */
const OUTSIDE = '203.0.113.77';
const DROP_COMMENT = 'Drop traffic to unallocated ClusterIPs';
const COUNTER: Record<string, string> = { [FREE]: 'free', [FREE6]: 'free6', [OUTSIDE]: 'outside' };

describe('ServiceCIDRs through the whole proxy', () => {
  let c: Cluster;

  /** Packets for `addr` the node has routed back to the client since the last read (reading resets). */
  const routedBack = (addr: string): number => {
    const out = c.topo.client.nft('reset', 'counter', 'inet', 'kpn_probe', COUNTER[addr]);
    const m = /packets (\d+)/.exec(out);
    assert.ok(m, `no packet count in: ${out}`);
    return Number(m[1]);
  };
  /** One TCP connection attempt to port 80 (500 ms): its reply line and how many packets came back routed. */
  const attempt = (addr: string): { reply: string; routed: number } => {
    routedBack(addr);
    const [reply] = c.topo.probe('tcp', addr, 80, 1, { timeoutMs: 500 });
    return { reply, routed: routedBack(addr) };
  };
  const dropRules = (): string[] => [...ruleset(c, 'ip').split('\n'), ...ruleset(c, 'ip6').split('\n')]
    .filter((l) => l.includes(DROP_COMMENT)).map((l) => l.trim());

  before(async () => {
    c = await startCluster({ pods: 2 });
    // The client's own packets never pass its prerouting hook: only what the node forwarded back does.
    c.topo.client.exec('nft', ['-f', '-'], [
      'table inet kpn_probe {',
      ...Object.values(COUNTER).map((n) => `  counter ${n} {}`),
      '  chain pre {',
      '    type filter hook prerouting priority -300;',
      `    ip daddr ${FREE} counter name ${COUNTER[FREE]}`,
      `    ip6 daddr ${FREE6} counter name ${COUNTER[FREE6]}`,
      `    ip daddr ${OUTSIDE} counter name ${COUNTER[OUTSIDE]}`,
      '  }',
      '}',
    ].join('\n'));
    const ports = [{ port: 80, targetPort: 8080 }];
    c.api.create('services', service('web', {
      clusterIP: VIP, clusterIPs: [VIP, VIP6], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack', ports,
    }));
    c.api.create('endpointslices', endpointSlice('web', 'web-v4', { ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })) }));
    c.api.create('endpointslices', endpointSlice('web', 'web-v6', { ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip6 })) }));
    await waitForAnswer(c, 'tcp', VIP, 80);
    await waitForAnswer(c, 'tcp', VIP6, 80);
  });
  after(async () => { await c?.stop(); });

  it('without a ServiceCIDR, an unallocated address in the ClusterIP range is routed like any other', () => {
    assert.deepEqual(dropRules(), []);
    for (const addr of [FREE, FREE6, OUTSIDE]) {
      const { reply, routed } = attempt(addr);
      assert.equal(reply, 'ERR TIMEOUT', addr);
      assert.ok(routed > 0, `${addr}: the node should have routed the SYN back to the client (counted ${routed})`);
    }
  });

  it('with a ServiceCIDR covering the range, drops it there, while the Service and other addresses still work', async () => {
    c.api.create('servicecidrs', serviceCIDR('kubernetes', ['100.100.0.0/16', '2001:db8:100::/64']));
    await eventually(() => dropRules().length === 2, () => `the drop rules (have: ${JSON.stringify(dropRules())})`);
    assert.deepEqual(dropRules(), [
      `ip daddr 100.100.0.0/16 drop comment "${DROP_COMMENT}"`,
      `ip6 daddr 2001:db8:100::/64 drop comment "${DROP_COMMENT}"`,
    ]);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', VIP, 80, 20))].sort(), ['pod0', 'pod1'], 'the ClusterIP is served');
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', VIP6, 80, 20))].sort(), ['pod0', 'pod1'], 'the IPv6 ClusterIP is served');
    for (const addr of [FREE, FREE6]) {
      assert.deepEqual(attempt(addr), { reply: 'ERR TIMEOUT', routed: 0 }, `${addr} is dropped on the node`);
    }
    const outside = attempt(OUTSIDE);
    assert.ok(outside.routed > 0, `${OUTSIDE} is outside every ServiceCIDR and still routed (counted ${outside.routed})`);
  });

  it('deleting the ServiceCIDR removes the drop rules: the address is routed again', async () => {
    assert.equal(dropRules().length, 2, 'the drop rules of the previous test are in place');
    const sc = c.api.store.get('servicecidrs', '', 'kubernetes')!;
    c.api.delete('servicecidrs', sc);
    await eventually(() => !ruleset(c, 'ip').includes(DROP_COMMENT) && !ruleset(c, 'ip6').includes(DROP_COMMENT),
      () => `the drop rules to go (have: ${JSON.stringify(dropRules())})`);
    for (const addr of [FREE, FREE6]) {
      const { reply, routed } = attempt(addr);
      assert.equal(reply, 'ERR TIMEOUT', addr);
      assert.ok(routed > 0, `${addr}: routed back to the client again (counted ${routed})`);
    }
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', VIP, 80, 20))].sort(), ['pod0', 'pod1']);
  });
});
