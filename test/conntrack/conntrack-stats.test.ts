// conntrackStats on the real kernel, in fresh namespaces: the entry count follows `conntrack -I`,
// the limit is nf_conntrack_max, the per-CPU counters are numbers and `invalid` moves when the
// kernel refuses packets, and a missing namespace is an errno error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConntrackClient, type ConntrackCounterName } from '../../src/native';
import { withNetns, type TestNetns } from '../helpers/netns';
import { addAddresses, installDnat, sendUdp } from './flow-lab';

const COUNTERS: ConntrackCounterName[] = ['found', 'invalid', 'insert', 'insert_failed', 'drop', 'early_drop', 'error', 'search_restart', 'clash_resolve', 'chain_toolong'];

/** n UDP entries 10.0.7.1:(20000+i) -> 10.0.7.2:53 made with conntrack -I (no packets). */
function insertEntries(ns: TestNetns, n: number): void {
  for (let i = 0; i < n; i++) {
    ns.exec('conntrack', ['-I', '-p', 'udp', '-s', '10.0.7.1', '-d', '10.0.7.2', '--sport', String(20000 + i), '--dport', '53', '-t', '120']);
  }
}

test('conntrackStats: entries counts what conntrack -I inserted; max is nf_conntrack_max', async () => {
  await withNetns(async (ns) => {
    const client = new ConntrackClient({ netns: ns.path });
    const before = await client.readStats();
    assert.equal(before.entries, 0);
    insertEntries(ns, 23);
    const after = await client.readStats();
    assert.equal(after.entries, 23);
    // The kernel counts inserts made through ctnetlink (packet-made entries are not counted there).
    assert.equal((after.counters.insert ?? 0) - (before.counters.insert ?? 0), 23);
    assert.equal(Number(ns.exec('conntrack', ['-C']).trim()), 23);
    const max = Number(ns.exec('cat', ['/proc/sys/net/netfilter/nf_conntrack_max']).trim());
    assert.ok(max > 0);
    assert.equal(after.maxEntries, max);
    assert.ok(after.cpus >= 1, `cpus ${after.cpus}`);
    for (const name of COUNTERS) {
      const v = after.counters[name];
      assert.ok(typeof v === 'number' && Number.isInteger(v) && v >= 0, `${name}: ${v}`);
    }
  }, 'kpncs');
});

/** TCP segments with SYN and FIN both set (a combination conntrack calls invalid) to 127.0.0.1:80, from a raw socket. */
function sendSynFin(ns: TestNetns, n: number): void {
  ns.exec('python3', ['-c', `
import socket, struct
r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
for i in range(${n}):
    r.sendto(struct.pack('!HHLLBBHHH', 40000 + i, 80, 1, 0, 5 << 4, 0x03, 1024, 0, 0), ('127.0.0.1', 0))
`]);
}

test('conntrackStats: invalid counts the packets conntrack refused (summed over CPUs); tracked packets add entries', async () => {
  await withNetns(async (ns) => {
    addAddresses(ns, ['10.0.8.1', '10.96.0.8', '10.0.8.2']);
    installDnat(ns, [{ family: 4, dst: '10.96.0.8', dport: 53, sport: 41000, to: '10.0.8.2', toPort: 5353 }]);
    const client = new ConntrackClient({ netns: ns.path });
    const before = await client.readStats();
    sendUdp(ns, [0, 1, 2, 3, 4].map((i) => ({ family: 4 as const, src: '10.0.8.1', sport: 41000 + i, dst: '10.96.0.8', dport: 53 })));
    sendSynFin(ns, 3);
    const after = await client.readStats();
    assert.equal(after.entries - before.entries, 5);
    // Each segment is judged on output and again on input (lo): at least once each.
    const invalid = (after.counters.invalid ?? 0) - (before.counters.invalid ?? 0);
    assert.ok(invalid >= 3 && invalid <= 6, `invalid went up by ${invalid}`);
  }, 'kpncs');
});

test('conntrackStats: each namespace has its own table', async () => {
  await withNetns(async (a) => {
    await withNetns(async (b) => {
      insertEntries(a, 4);
      insertEntries(b, 2);
      assert.equal((await new ConntrackClient({ netns: a.path }).readStats()).entries, 4);
      assert.equal((await new ConntrackClient({ netns: b.path }).readStats()).entries, 2);
    }, 'kpncs');
  }, 'kpncs');
});

test('conntrackStats: a missing namespace rejects with errno ENOENT', async () => {
  await assert.rejects(
    new ConntrackClient({ netns: '/run/netns/kpn-does-not-exist' }).readStats(),
    (e: Error & { errno?: number; code?: string }) => e.errno === 2 && e.code === 'ENOENT' && /^conntrack stats: .*kpn-does-not-exist/.test(e.message),
  );
});
