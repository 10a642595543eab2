// conntrackDelete on the real kernel: real UDP flows (DNATed like kube-proxy's) in a fresh
// namespace; each case checks that exactly the matching entries are gone and the rest remain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConntrackClient, loadAddon, type ConntrackFilter } from '../../src/native';
import { cleanupStaleFlows } from '../../src/conntrack/cleanup';
import type { ServicePort } from '../../src/core/types';
import { withNetns, type TestNetns } from '../helpers/netns';
import { addAddresses, flowKey, insertSctp, installDnat, listFlows, sendUdp, type Dnat, type Flow, type Send } from './flow-lab';

const CLIENT = '10.0.9.1', SVC_A = '10.96.0.10', SVC_B = '10.96.0.11', NODE = '10.0.0.5', EP1 = '10.0.1.1', EP2 = '10.0.1.2';

/** 12 UDP flows: Service A (3 to EP1, 3 to EP2), Service B (2 to EP1), NodePort (1 each), 2 un-NATed. */
function buildLab(ns: TestNetns): Flow[] {
  addAddresses(ns, [CLIENT, SVC_A, SVC_B, NODE, EP1, EP2]);
  const dnat: Dnat[] = [];
  const sends: Send[] = [];
  const flow = (dst: string, dport: number, sport: number, to?: string): void => {
    if (to) dnat.push({ family: 4, dst, dport, sport, to, toPort: 5353 });
    sends.push({ family: 4, src: CLIENT, sport, dst, dport });
  };
  for (const sp of [40001, 40002, 40003]) flow(SVC_A, 53, sp, EP1);
  for (const sp of [40004, 40005, 40006]) flow(SVC_A, 53, sp, EP2);
  for (const sp of [40001, 40002]) flow(SVC_B, 53, sp, EP1);
  flow(NODE, 30053, 40001, EP1);
  flow(NODE, 30053, 40002, EP2);
  flow(EP1, 5353, 40010);
  flow(SVC_A, 54, 40011);
  installDnat(ns, dnat);
  sendUdp(ns, sends);
  const flows = listFlows(ns, 'udp');
  assert.equal(flows.length, 12, `lab flows:\n${flows.map(flowKey).join('\n')}`);
  return flows;
}

const keys = (flows: Flow[]): string[] => flows.map(flowKey).sort();

const cases: Array<{ name: string; filters: ConntrackFilter[]; gone: (f: Flow) => boolean }> = [
  {
    name: 'removed endpoint of a ClusterIP: only its flows via that Service',
    filters: [{ family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 53, replySrc: EP1, replySrcPort: 5353 }],
    gone: (f) => f.origDst === SVC_A && f.dport === 53 && f.replySrc === EP1,
  },
  {
    name: 'removed endpoint of a NodePort: orig dst port + reply source, any node address',
    filters: [{ family: 4, protocol: 'udp', origDstPort: 30053, replySrc: EP1, replySrcPort: 5353 }],
    gone: (f) => f.dport === 30053 && f.replySrc === EP1,
  },
  {
    name: 'service went from 0 to N endpoints: every flow to its IP and port, not other ports',
    filters: [{ family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 53 }],
    gone: (f) => f.origDst === SVC_A && f.dport === 53,
  },
  {
    name: 'dnat: false keeps the DNATed flows to the IP and port (a restarted proxy\'s "newly active" Services)',
    filters: [{ family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 53, dnat: false }],
    gone: () => false,
  },
  {
    name: 'dnat: false deletes a flow no rule translated',
    filters: [{ family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 54, dnat: false }],
    gone: (f) => f.origDst === SVC_A && f.dport === 54,
  },
  {
    name: 'dnat: true deletes only translated flows',
    filters: [{ family: 4, protocol: 'udp', origDst: SVC_A, dnat: true }],
    gone: (f) => f.origDst === SVC_A && f.dport === 53,
  },
  {
    name: 'reply source alone: every flow answered by that endpoint',
    filters: [{ family: 4, protocol: 'udp', replySrc: EP1 }],
    gone: (f) => f.replySrc === EP1,
  },
  {
    name: 'no match: nothing deleted',
    filters: [{ family: 4, protocol: 'udp', origDst: '10.96.0.99', origDstPort: 53 }],
    gone: () => false,
  },
  {
    name: 'wrong protocol: UDP flows are not TCP flows',
    filters: [{ family: 4, protocol: 'tcp', origDst: SVC_A, origDstPort: 53 }],
    gone: () => false,
  },
];

for (const c of cases) {
  test(`conntrackDelete: ${c.name}`, async () => {
    await withNetns(async (ns) => {
      const before = buildLab(ns);
      const client = new ConntrackClient({ netns: ns.path });
      const r = await client.deleteFlows(c.filters);
      const expectedGone = before.filter(c.gone);
      assert.deepEqual(keys(listFlows(ns, 'udp')), keys(before.filter((f) => !c.gone(f))));
      assert.equal(r.deleted, expectedGone.length);
      assert.deepEqual(r.deletedByProtocol, { udp: expectedGone.length, tcp: 0, sctp: 0 });
      assert.equal(r.dumps, 1);
      // The kernel applied the filter: it sent back only the matching entries, not all 12.
      assert.equal(r.received, expectedGone.length);
      assert.equal(r.failed, 0);
      assert.equal(r.failedFilters, undefined, 'only present when a DELETE failed');
    }, 'kpnct');
  });
}

test('conntrackDelete: overlapping filters in one call delete each entry once', async () => {
  await withNetns(async (ns) => {
    const before = buildLab(ns);
    const r = await new ConntrackClient({ netns: ns.path, dumpCostEntries: 0 }).deleteFlows([
      { family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 53, replySrc: EP1, replySrcPort: 5353 },
      { family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 53 },
      { family: 4, protocol: 'udp', origDstPort: 30053, replySrc: EP2 },
    ]);
    const gone = (f: Flow): boolean => (f.origDst === SVC_A && f.dport === 53) || (f.dport === 30053 && f.replySrc === EP2);
    assert.deepEqual(keys(listFlows(ns, 'udp')), keys(before.filter((f) => !gone(f))));
    // The two filters on SVC_A:53 share one dump (6 entries back), the NodePort one has its own (1).
    assert.deepEqual({ deleted: r.deleted, matched: r.matched, received: r.received, dumps: r.dumps, notFound: r.notFound }, { deleted: 7, matched: 7, received: 7, dumps: 2, notFound: 0 });
  }, 'kpnct');
});

test('conntrackDelete: filters for several endpoints of one Service IP:port are one kernel dump', async () => {
  await withNetns(async (ns) => {
    const before = buildLab(ns);
    const r = await new ConntrackClient({ netns: ns.path, dumpCostEntries: 0 }).deleteFlows([
      { family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 53, replySrc: EP2, replySrcPort: 5353 },
      { family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 53, replySrc: '10.0.1.77', replySrcPort: 5353 },
      { family: 4, protocol: 'udp', origDst: SVC_B, origDstPort: 53, replySrc: EP1, replySrcPort: 5353 },
      { family: 4, protocol: 'udp', replySrc: EP2, replySrcPort: 9 },
    ]);
    const gone = (f: Flow): boolean => (f.origDst === SVC_A && f.dport === 53 && f.replySrc === EP2) || (f.origDst === SVC_B && f.replySrc === EP1);
    assert.deepEqual(keys(listFlows(ns, 'udp')), keys(before.filter((f) => !gone(f))));
    assert.equal(r.deleted, 5);
    assert.equal(r.dumps, 3, 'SVC_A:53 once, SVC_B:53 once, the reply-only filter alone');
  }, 'kpnct');
});

const spread: ConntrackFilter[] = [
  { family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 53, replySrc: EP2 },
  { family: 4, protocol: 'udp', origDst: SVC_B, origDstPort: 53 },
  { family: 4, protocol: 'udp', origDstPort: 30053, replySrc: EP1, replySrcPort: 5353 },
];
const spreadGone = (f: Flow): boolean => (f.origDst === SVC_A && f.dport === 53 && f.replySrc === EP2) || f.origDst === SVC_B || (f.dport === 30053 && f.replySrc === EP1);

test('conntrackDelete: with a small table, several dumps become one protocol-wide dump matched in user space', async () => {
  await withNetns(async (ns) => {
    const before = buildLab(ns);
    const r = await new ConntrackClient({ netns: ns.path }).deleteFlows(spread);
    assert.deepEqual(keys(listFlows(ns, 'udp')), keys(before.filter((f) => !spreadGone(f))));
    assert.deepEqual({ deleted: r.deleted, dumps: r.dumps, received: r.received, tableEntries: r.tableEntries }, { deleted: 6, dumps: 1, received: 12, tableEntries: 12 });
  }, 'kpnct');
});

test('conntrackDelete: when the table is large relative to the walk cost, each Service IP:port keeps its own dump', async () => {
  await withNetns(async (ns) => {
    const before = buildLab(ns);
    const r = await new ConntrackClient({ netns: ns.path, dumpCostEntries: 5 }).deleteFlows(spread);
    assert.deepEqual(keys(listFlows(ns, 'udp')), keys(before.filter((f) => !spreadGone(f))));
    assert.deepEqual({ deleted: r.deleted, dumps: r.dumps, received: r.received }, { deleted: 6, dumps: 3, received: 6 });
  }, 'kpnct');
});

test('conntrackDelete: IPv6 flows, and a family-6 filter leaves IPv4 flows alone', async () => {
  await withNetns(async (ns) => {
    const [c6, s6, e1, e2] = ['fd00:9::1', 'fd00:96::10', 'fd00:1::1', 'fd00:1::2'];
    addAddresses(ns, [CLIENT, SVC_A, EP1, c6, s6, e1, e2]);
    installDnat(ns, [
      { family: 6, dst: s6, dport: 53, sport: 41001, to: e1, toPort: 5353 },
      { family: 6, dst: s6, dport: 53, sport: 41002, to: e2, toPort: 5353 },
      { family: 4, dst: SVC_A, dport: 53, sport: 41001, to: EP1, toPort: 5353 },
    ]);
    sendUdp(ns, [
      { family: 6, src: c6, sport: 41001, dst: s6, dport: 53 },
      { family: 6, src: c6, sport: 41002, dst: s6, dport: 53 },
      { family: 4, src: CLIENT, sport: 41001, dst: SVC_A, dport: 53 },
    ]);
    const v6 = listFlows(ns, 'udp', 6);
    assert.equal(v6.length, 2);
    const r = await new ConntrackClient({ netns: ns.path }).deleteFlows([{ family: 6, protocol: 'udp', origDstPort: 53, replySrc: e1 }]);
    assert.equal(r.deleted, 1);
    assert.deepEqual(listFlows(ns, 'udp', 6).map((f) => f.replySrc), [e2]);
    assert.equal(listFlows(ns, 'udp', 4).length, 1, 'IPv4 flow untouched');
  }, 'kpnct');
});

test('conntrackDelete: SCTP ports are honoured (the kernel filter ignores them; checked again in user space)', async () => {
  await withNetns(async (ns) => {
    ns.exec('nft', ['-f', '-'], 'table ip ctlab { chain out { type filter hook output priority 0; ct state new counter; }; }\n');
    insertSctp(ns, { src: CLIENT, sport: 1000, dst: '10.96.0.30', dport: 9000, replySrc: '10.0.3.3', replySport: 9000 });
    insertSctp(ns, { src: CLIENT, sport: 1001, dst: '10.96.0.30', dport: 9001, replySrc: '10.0.3.3', replySport: 9000 });
    const r = await new ConntrackClient({ netns: ns.path }).deleteFlows([
      { family: 4, protocol: 'sctp', origDst: '10.96.0.30', origDstPort: 9000, replySrc: '10.0.3.3', replySrcPort: 9000 },
    ]);
    assert.equal(r.deleted, 1);
    assert.deepEqual(r.deletedByProtocol, { udp: 0, tcp: 0, sctp: 1 });
    assert.ok(r.received >= r.matched);
    assert.deepEqual(listFlows(ns, 'sctp').map((f) => f.dport), [9001]);
  }, 'kpnct');
});

const svcA: ServicePort = {
  key: 'ns/a:dns/UDP', namespace: 'ns', name: 'a', portName: 'dns', protocol: 'UDP', family: 'IPv4', clusterIP: SVC_A, port: 53,
  nodePort: 30053, externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [], affinityTimeoutSeconds: 0,
  externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0,
};
const removedEp1 = { services: new Set([svcA.key]), removedEndpoints: new Map([[svcA.key, [{ ip: EP1, port: 5353, ready: true, serving: true, terminating: false, isLocal: false }]]]) };

test('cleanupStaleFlows: a removed endpoint loses its Service and NodePort flows only', async () => {
  await withNetns(async (ns) => {
    const before = buildLab(ns);
    const out = await cleanupStaleFlows(new ConntrackClient({ netns: ns.path }), { services: new Map([[svcA.key, svcA]]) }, removedEp1);
    const gone = (f: Flow): boolean => f.replySrc === EP1 && ((f.origDst === SVC_A && f.dport === 53) || f.dport === 30053);
    assert.equal(out.error, undefined);
    assert.equal(out.filters, 2);
    assert.equal(out.result?.deleted, 4);
    assert.deepEqual(keys(listFlows(ns, 'udp')), keys(before.filter((f) => !gone(f))));
  }, 'kpnct');
});

test('cleanupStaleFlows: a failing delete is returned as an error, not thrown', async () => {
  const out = await cleanupStaleFlows(new ConntrackClient({ netns: '/run/netns/kpn-does-not-exist' }), { services: new Map([[svcA.key, svcA]]) }, removedEp1);
  assert.equal(out.filters, 2);
  assert.equal(out.result, undefined);
  assert.match(out.error?.message ?? '', /kpn-does-not-exist/);
});

test('cleanupStaleFlows: nothing stale, nothing sent', async () => {
  const out = await cleanupStaleFlows(new ConntrackClient({ netns: '/run/netns/kpn-does-not-exist' }), { services: new Map([[svcA.key, svcA]]) }, { services: new Set(), removedEndpoints: new Map() });
  assert.deepEqual(out, { filters: 0, durationSeconds: 0 });
});

test('conntrackDelete: a missing namespace rejects with errno ENOENT', async () => {
  await assert.rejects(
    new ConntrackClient({ netns: '/run/netns/kpn-does-not-exist' }).deleteFlows([{ family: 4, protocol: 'udp', origDstPort: 53 }]),
    (e: Error & { errno?: number; code?: string }) => e.errno === 2 && e.code === 'ENOENT' && /kpn-does-not-exist/.test(e.message),
  );
});

test('conntrackDelete: no filters resolves without touching the kernel', async () => {
  const r = await new ConntrackClient({ netns: '/run/netns/kpn-does-not-exist' }).deleteFlows([]);
  assert.equal(r.deleted, 0);
});

test('conntrackDelete: bad arguments throw TypeError/RangeError naming them', () => {
  const { conntrackDelete } = loadAddon();
  const call = (netns: unknown, filters: unknown): unknown => (conntrackDelete as (a: unknown, b: unknown) => unknown)(netns, filters);
  const ok = { family: 4, protocol: 'udp', origDstPort: 53 };
  const rows: Array<[unknown, unknown, ErrorConstructor, RegExp]> = [
    [42, [ok], TypeError, /^netnsPath must be a string or null/],
    ['', [ok], RangeError, /^netnsPath must be a non-empty path/],
    [null, 'x', TypeError, /^filters must be an array/],
    [null, [7], TypeError, /^filters\[0\] must be an object/],
    [null, [ok, { ...ok, family: 5 }], RangeError, /^filters\[1\]\.family must be 4 or 6/],
    [null, [{ ...ok, family: '4' }], TypeError, /^filters\[0\]\.family/],
    [null, [{ ...ok, protocol: 'icmp' }], RangeError, /^filters\[0\]\.protocol must be 'udp', 'tcp' or 'sctp'/],
    [null, [{ ...ok, protocol: 17 }], TypeError, /^filters\[0\]\.protocol/],
    [null, [{ ...ok, origDst: '10.0.0.300' }], RangeError, /^filters\[0\]\.origDst is not an IPv4 address/],
    [null, [{ ...ok, origDst: 'fd00::1' }], RangeError, /^filters\[0\]\.origDst is not an IPv4 address/],
    [null, [{ ...ok, family: 6, replySrc: '10.0.0.1' }], RangeError, /^filters\[0\]\.replySrc is not an IPv6 address/],
    [null, [{ ...ok, replySrc: 10 }], TypeError, /^filters\[0\]\.replySrc must be an IP address string/],
    [null, [{ ...ok, origDstPort: 70000 }], RangeError, /^filters\[0\]\.origDstPort must be an integer in 1\.\.65535/],
    [null, [{ ...ok, replySrcPort: 1.5 }], RangeError, /^filters\[0\]\.replySrcPort must be an integer/],
    [null, [{ ...ok, replySrcPort: '53' }], TypeError, /^filters\[0\]\.replySrcPort must be an integer port number/],
    [null, [{ family: 4, protocol: 'udp' }], RangeError, /^filters\[0\] must name at least one of origDst/],
    [null, [{ ...ok, dnat: 'no' }], TypeError, /^filters\[0\]\.dnat must be a boolean/],
    [null, [{ family: 4, protocol: 'udp', dnat: false }], RangeError, /^filters\[0\] must name at least one of origDst/],
  ];
  for (const [netns, filters, type, msg] of rows) {
    assert.throws(() => call(netns, filters), (e: Error) => e instanceof type && msg.test(e.message), `${JSON.stringify([netns, filters])}`);
  }
  const withOptions = (options: unknown): unknown => (conntrackDelete as (a: unknown, b: unknown, c: unknown) => unknown)(null, [ok], options);
  assert.throws(() => withOptions(3), (e: Error) => e instanceof TypeError && /^options must be an object/.test(e.message));
  assert.throws(() => withOptions({ dumpCostEntries: '1' }), (e: Error) => e instanceof TypeError && /^options\.dumpCostEntries/.test(e.message));
  assert.throws(() => withOptions({ dumpCostEntries: -1 }), (e: Error) => e instanceof RangeError && /^options\.dumpCostEntries must be an integer/.test(e.message));
});

test('conntrackDelete: 2000 matching flows are deleted over several batched sends, the others kept', async () => {
  await withNetns(async (ns) => {
    addAddresses(ns, [CLIENT, SVC_A, SVC_B, EP1]);
    // One DNAT for every source port: sport-independent rule.
    ns.exec('nft', ['-f', '-'], `table ip ctlab { chain out { type nat hook output priority -100; ip daddr { ${SVC_A}, ${SVC_B} } udp dport 53 dnat to ${EP1}:5353; }; }\n`);
    const sends: Send[] = [];
    for (let i = 0; i < 2000; i++) sends.push({ family: 4, src: CLIENT, sport: 20000 + i, dst: SVC_A, dport: 53 });
    for (let i = 0; i < 5; i++) sends.push({ family: 4, src: CLIENT, sport: 30000 + i, dst: SVC_B, dport: 53 });
    sendUdp(ns, sends);
    assert.equal(listFlows(ns, 'udp').length, 2005);
    const r = await new ConntrackClient({ netns: ns.path }).deleteFlows([{ family: 4, protocol: 'udp', origDst: SVC_A, origDstPort: 53, replySrc: EP1 }]);
    assert.deepEqual({ deleted: r.deleted, received: r.received, failed: r.failed }, { deleted: 2000, received: 2000, failed: 0 });
    const left = listFlows(ns, 'udp');
    assert.equal(left.length, 5);
    assert.ok(left.every((f) => f.origDst === SVC_B));
  }, 'kpnct');
});
