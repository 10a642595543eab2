// The start-up pass and the retry queue on the real kernel: DNATed flows in a fresh namespace, some
// to endpoints the snapshot no longer has; after the pass exactly those are gone (checked with
// conntrack -L). The retry case fails for real (the namespace path does not exist yet), then
// succeeds on the next sync once the path is there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { ConntrackCleanup } from '../../src/conntrack/cleanup';
import { ConntrackClient } from '../../src/native';
import type { StartupSnapshot } from '../../src/conntrack/startup-stale';
import type { ChangeSet, Endpoint, SelectedEndpoints, ServicePort } from '../../src/core/types';
import { withNetns, type TestNetns } from '../helpers/netns';
import { addAddresses, flowKey, insertDnatSctp, installDnat, listFlows, sendUdp, type Dnat, type Flow, type Send } from './flow-lab';

const CLIENT = '10.0.9.1', SVC_A = '10.96.0.10', SVC_GONE = '10.96.0.99', SVC_S = '10.96.0.30', NODE = '10.0.0.5';
const EP1 = '10.0.1.1', EP2 = '10.0.1.2', EP3 = '10.0.1.3';
const [C6, S6, E61, E62] = ['fd00:9::1', 'fd00:96::10', 'fd00:1::1', 'fd00:1::2'];

function port(over: Partial<ServicePort> & { key: string }): ServicePort {
  return {
    namespace: 'ns', name: 'a', portName: 'dns', protocol: 'UDP', family: 'IPv4', clusterIP: SVC_A, port: 53, nodePort: 0,
    externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [], affinityTimeoutSeconds: 0,
    externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0, ...over,
  };
}
const ep = (ip: string, p: number): Endpoint => ({ ip, port: p, ready: true, serving: true, terminating: false, isLocal: false });
const sel = (eps: Endpoint[]): SelectedEndpoints => ({ cluster: eps, local: [], allReachable: eps, hasAny: eps.length > 0 });

const svcA = port({ key: 'ns/a:dns/UDP', nodePort: 30053 });
const svcS = port({ key: 'ns/s:s/SCTP', name: 's', protocol: 'SCTP', clusterIP: SVC_S, port: 9000 });
const svc6 = port({ key: 'ns/a:dns/UDP/IPv6', family: 'IPv6', clusterIP: S6 });

/** Today: A has only EP1, S only 10.0.3.4, the IPv6 Service only E61; the Service at SVC_GONE was deleted. */
const today: StartupSnapshot = {
  services: new Map([[svcA.key, svcA], [svcS.key, svcS], [svc6.key, svc6]]),
  endpoints: new Map([[svcA.key, sel([ep(EP1, 5353)])], [svcS.key, sel([ep('10.0.3.4', 9000)])], [svc6.key, sel([ep(E61, 5353)])]]),
  serviceCIDRs: ['10.96.0.0/16', 'fd00:96::/112'],
};

/** Flows from before the restart. `stale` says which ones the pass must delete. */
function buildLab(ns: TestNetns): { udp4: Flow[]; stale: (f: Flow) => boolean } {
  addAddresses(ns, [CLIENT, SVC_A, SVC_GONE, NODE, EP1, EP2, EP3, C6, S6, E61, E62]);
  const rules: Dnat[] = [];
  const sends: Send[] = [];
  const via = (dst: string, dport: number, sport: number, to?: string): void => {
    if (to) rules.push({ family: 4, dst, dport, sport, to, toPort: 5353 });
    sends.push({ family: 4, src: CLIENT, sport, dst, dport });
  };
  via(SVC_A, 53, 40001, EP1);     // live
  via(SVC_A, 53, 40002, EP2);     // stale: EP2 is gone
  via(SVC_A, 53, 40003, EP2);     // stale
  via(NODE, 30053, 40004, EP1);   // NodePort, live
  via(NODE, 30053, 40005, EP2);   // NodePort, stale
  via(SVC_GONE, 53, 40006, EP3);  // the Service is gone: stale
  via(NODE, 8053, 40007, EP2);    // a hostPort-like DNAT, not ours: kept
  via(EP2, 5353, 40008);          // not DNATed: kept
  rules.push({ family: 6, dst: S6, dport: 53, sport: 41001, to: E61, toPort: 5353 });
  rules.push({ family: 6, dst: S6, dport: 53, sport: 41002, to: E62, toPort: 5353 });
  sends.push({ family: 6, src: C6, sport: 41001, dst: S6, dport: 53 }, { family: 6, src: C6, sport: 41002, dst: S6, dport: 53 });
  installDnat(ns, rules);
  sendUdp(ns, sends);
  insertDnatSctp(ns, { src: CLIENT, sport: 1000, dst: SVC_S, dport: 9000, to: '10.0.3.3' });
  insertDnatSctp(ns, { src: CLIENT, sport: 1001, dst: SVC_S, dport: 9000, to: '10.0.3.4' });
  const udp4 = listFlows(ns, 'udp');
  assert.equal(udp4.length, 8, udp4.map(flowKey).join('\n'));
  const stale = (f: Flow): boolean => [40002, 40003, 40005, 40006].includes(f.sport);
  return { udp4, stale };
}

const keys = (flows: Flow[]): string[] => flows.map(flowKey).sort();

test('start-up pass: flows DNATed to endpoints or Services that went away are deleted, the rest kept', async () => {
  await withNetns(async (ns) => {
    const { udp4, stale } = buildLab(ns);
    const out = await new ConntrackCleanup(new ConntrackClient({ netns: ns.path })).atStartup(today);
    assert.deepEqual(keys(listFlows(ns, 'udp')), keys(udp4.filter((f) => !stale(f))));
    assert.deepEqual(listFlows(ns, 'sctp').map((f) => f.replySrc), ['10.0.3.4']);
    assert.deepEqual(listFlows(ns, 'udp', 6).map((f) => f.replySrc), [E61]);
    assert.deepEqual(out.lists.map((l) => `${l.family}/${l.protocol}:${l.flows}`), ['4/udp:7', '4/sctp:2', '6/udp:2', '6/sctp:0']);
    assert.ok(out.lists.every((l) => !l.truncated && !l.error));
    assert.deepEqual(out.report, { examined: 11, stale: 6, live: 4, notOurs: 1, skippedEntries: 0, skippedStale: 0, truncatedLists: 0 });
    // 40002 and 40003 share one exact filter (same Service address, same old endpoint).
    assert.deepEqual({ filters: out.delete?.filters, deleted: out.delete?.result?.deleted, failed: out.delete?.result?.failed, pending: out.delete?.pending },
      { filters: 5, deleted: 6, failed: 0, pending: 0 });
  }, 'kpnct');
});

test('start-up pass: maxEntries stops the listing; only stale flows among those listed are deleted', async () => {
  await withNetns(async (ns) => {
    const { udp4, stale } = buildLab(ns);
    const out = await new ConntrackCleanup(new ConntrackClient({ netns: ns.path })).atStartup(today, { families: ['IPv4'], maxEntries: 5 });
    assert.deepEqual(out.lists.map((l) => [l.protocol, l.flows, l.truncated, l.notListed ?? false]), [['udp', 5, true, false], ['sctp', 0, true, true]]);
    assert.equal(out.report.examined, 5);
    assert.equal(out.report.truncatedLists, 1);
    const left = new Set(keys(listFlows(ns, 'udp')));
    const gone = udp4.filter((f) => !left.has(flowKey(f)));
    // A filter is exact (Service address and port, old endpoint), so it may also take unlisted
    // flows of other clients through the same Service to the same gone endpoint: stale too.
    // 5 of the 7 DNATed flows were listed and only 3 are not stale: at least 2 stale ones.
    assert.ok(out.report.stale >= 2 && gone.length >= out.report.stale);
    assert.equal(out.delete?.result?.deleted, gone.length);
    assert.ok(gone.every(stale), `deleted only stale flows: ${keys(gone).join(', ')}`);
    assert.equal(listFlows(ns, 'sctp').length, 2, 'SCTP was not listed, so not touched');
  }, 'kpnct');
});

test('retry: a delete that failed (namespace path missing) is sent again after the next sync and succeeds', async () => {
  await withNetns(async (ns) => {
    const { udp4 } = buildLab(ns);
    const link = `/tmp/kpnct-retry-${randomBytes(4).toString('hex')}`;
    try {
      const cleanup = new ConntrackCleanup(new ConntrackClient({ netns: link }));
      const removedEp2: ChangeSet = { services: new Set([svcA.key]), removedEndpoints: new Map([[svcA.key, [ep(EP2, 5353)]]]) };
      const snapshot = { services: new Map([[svcA.key, svcA]]) };
      const first = await cleanup.afterSync(snapshot, removedEp2);
      assert.match(first.error?.message ?? '', /ENOENT|No such file/);
      assert.deepEqual({ filters: first.filters, pending: first.pending, result: first.result }, { filters: 2, pending: 2, result: undefined });
      assert.equal(listFlows(ns, 'udp').length, 8, 'nothing deleted');
      // The start-up pass against the same missing path reports per list and throws nothing.
      const startup = await cleanup.atStartup(today, { families: ['IPv4'] });
      assert.ok(startup.lists.every((l) => /ENOENT|No such file/.test(l.error?.message ?? '')));
      assert.equal(startup.delete, undefined);

      fs.symlinkSync(ns.path, link);
      const second = await cleanup.afterSync(snapshot, { services: new Set(), removedEndpoints: new Map() });
      assert.equal(second.error, undefined);
      assert.deepEqual({ filters: second.filters, retried: second.retried, pending: second.pending, deleted: second.result?.deleted }, { filters: 2, retried: 2, pending: 0, deleted: 3 });
      const gone = (f: Flow): boolean => f.replySrc === EP2 && ((f.origDst === SVC_A && f.dport === 53) || f.dport === 30053);
      assert.deepEqual(keys(listFlows(ns, 'udp')), keys(udp4.filter((f) => !gone(f))));
    } finally {
      fs.rmSync(link, { force: true });
    }
  }, 'kpnct');
});
