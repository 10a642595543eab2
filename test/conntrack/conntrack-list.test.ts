// conntrackList on the real kernel: DNATed UDP flows (and un-NATed ones beside them) in a fresh
// namespace; the list must return exactly the DNATed flows of the family and protocol asked for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConntrackClient, loadAddon, type DnatFlow } from '../../src/native';
import { withNetns, type TestNetns } from '../helpers/netns';
import { addAddresses, insertDnatSctp, insertSctp, installDnat, listFlows, sendUdp, type Dnat, type Send } from './flow-lab';

const CLIENT = '10.0.9.1', SVC = '10.96.0.10', EP1 = '10.0.1.1', EP2 = '10.0.1.2';

/** 5 DNATed UDP flows to SVC:53 (3 via EP1, 2 via EP2) and 2 un-NATed ones. */
function buildLab(ns: TestNetns): void {
  addAddresses(ns, [CLIENT, SVC, EP1, EP2]);
  const dnat: Dnat[] = [];
  const sends: Send[] = [];
  for (const [sport, to] of [[40001, EP1], [40002, EP1], [40003, EP1], [40004, EP2], [40005, EP2]] as const) {
    dnat.push({ family: 4, dst: SVC, dport: 53, sport, to, toPort: 5353 });
    sends.push({ family: 4, src: CLIENT, sport, dst: SVC, dport: 53 });
  }
  sends.push({ family: 4, src: CLIENT, sport: 40010, dst: EP1, dport: 5353 });
  sends.push({ family: 4, src: CLIENT, sport: 40011, dst: SVC, dport: 54 });
  installDnat(ns, dnat);
  sendUdp(ns, sends);
  assert.equal(listFlows(ns, 'udp').length, 7);
}

const flowText = (f: DnatFlow): string => `${f.origSrc}:${f.origSrcPort} > ${f.origDst}:${f.origDstPort} via ${f.replySrc}:${f.replySrcPort}`;

test('conntrackList: returns the DNATed UDP flows only, with both tuples', async () => {
  await withNetns(async (ns) => {
    buildLab(ns);
    const r = await new ConntrackClient({ netns: ns.path }).listDnatFlows({ family: 4, protocol: 'udp', max: 100 });
    assert.deepEqual(r.flows.map(flowText).sort(), [
      `${CLIENT}:40001 > ${SVC}:53 via ${EP1}:5353`,
      `${CLIENT}:40002 > ${SVC}:53 via ${EP1}:5353`,
      `${CLIENT}:40003 > ${SVC}:53 via ${EP1}:5353`,
      `${CLIENT}:40004 > ${SVC}:53 via ${EP2}:5353`,
      `${CLIENT}:40005 > ${SVC}:53 via ${EP2}:5353`,
    ]);
    assert.equal(r.truncated, false);
    // The kernel applied the status filter: the 2 un-NATed flows never left it.
    assert.equal(r.received, 5);
  }, 'kpnct');
});

test('conntrackList: stops at max and says truncated', async () => {
  await withNetns(async (ns) => {
    buildLab(ns);
    const client = new ConntrackClient({ netns: ns.path });
    const r = await client.listDnatFlows({ family: 4, protocol: 'udp', max: 2 });
    assert.equal(r.flows.length, 2);
    assert.equal(r.truncated, true);
    const exact = await client.listDnatFlows({ family: 4, protocol: 'udp', max: 5 });
    assert.deepEqual({ n: exact.flows.length, truncated: exact.truncated }, { n: 5, truncated: false });
  }, 'kpnct');
});

test('conntrackList: the family and protocol asked for, nothing else', async () => {
  await withNetns(async (ns) => {
    const [c6, s6, e6] = ['fd00:9::1', 'fd00:96::10', 'fd00:1::1'];
    addAddresses(ns, [CLIENT, SVC, EP1, c6, s6, e6]);
    installDnat(ns, [
      { family: 4, dst: SVC, dport: 53, sport: 41001, to: EP1, toPort: 5353 },
      { family: 6, dst: s6, dport: 53, sport: 41002, to: e6, toPort: 5353 },
    ]);
    sendUdp(ns, [
      { family: 4, src: CLIENT, sport: 41001, dst: SVC, dport: 53 },
      { family: 6, src: c6, sport: 41002, dst: s6, dport: 53 },
    ]);
    // SCTP: one entry DNATed by the kernel (--dst-nat), one whose reply merely differs (no DNAT status).
    insertDnatSctp(ns, { src: CLIENT, sport: 1000, dst: '10.96.0.30', dport: 9000, to: '10.0.3.3' });
    insertSctp(ns, { src: CLIENT, sport: 1001, dst: '10.96.0.30', dport: 9000, replySrc: '10.0.3.3', replySport: 9000 });
    const client = new ConntrackClient({ netns: ns.path });
    const v4 = await client.listDnatFlows({ family: 4, protocol: 'udp', max: 10 });
    const v6 = await client.listDnatFlows({ family: 6, protocol: 'udp', max: 10 });
    const sctp = await client.listDnatFlows({ family: 4, protocol: 'sctp', max: 10 });
    const sctp6 = await client.listDnatFlows({ family: 6, protocol: 'sctp', max: 10 });
    assert.deepEqual(v4.flows.map(flowText), [`${CLIENT}:41001 > ${SVC}:53 via ${EP1}:5353`]);
    assert.deepEqual(v6.flows.map(flowText), [`${c6}:41002 > ${s6}:53 via ${e6}:5353`]);
    assert.deepEqual(sctp.flows.map(flowText), [`${CLIENT}:1000 > 10.96.0.30:9000 via 10.0.3.3:9000`]);
    assert.deepEqual(sctp6.flows, []);
  }, 'kpnct');
});

test('conntrackList: a missing namespace rejects with errno ENOENT', async () => {
  await assert.rejects(
    new ConntrackClient({ netns: '/run/netns/kpn-does-not-exist' }).listDnatFlows({ family: 4, protocol: 'udp', max: 1 }),
    (e: Error & { errno?: number; code?: string }) => e.errno === 2 && e.code === 'ENOENT' && /^conntrack list: .*kpn-does-not-exist/.test(e.message),
  );
});

test('conntrackList: bad arguments throw TypeError/RangeError naming them', () => {
  const { conntrackList } = loadAddon();
  const call = (netns: unknown, query: unknown): unknown => (conntrackList as (a: unknown, b: unknown) => unknown)(netns, query);
  const ok = { family: 4, protocol: 'udp', max: 10 };
  const rows: Array<[unknown, unknown, ErrorConstructor, RegExp]> = [
    [7, ok, TypeError, /^netnsPath must be a string or null/],
    [null, undefined, TypeError, /^query must be an object/],
    [null, [ok], TypeError, /^query must be an object/],
    [null, { ...ok, family: 5 }, RangeError, /^query\.family must be 4 or 6/],
    [null, { ...ok, protocol: 'tcp' }, RangeError, /^query\.protocol must be 'udp' or 'sctp'/],
    [null, { ...ok, protocol: 'icmp' }, RangeError, /^query\.protocol must be/],
    [null, { family: 4, protocol: 'udp' }, TypeError, /^query\.max must be an integer/],
    [null, { ...ok, max: 0 }, RangeError, /^query\.max must be an integer in 1\.\.1048576/],
    [null, { ...ok, max: 1.5 }, RangeError, /^query\.max must be an integer in/],
    [null, { ...ok, max: 1048577 }, RangeError, /^query\.max must be an integer in/],
  ];
  for (const [netns, query, type, msg] of rows) {
    assert.throws(() => call(netns, query), (e: Error) => e instanceof type && msg.test(e.message), JSON.stringify([netns, query]));
  }
});
