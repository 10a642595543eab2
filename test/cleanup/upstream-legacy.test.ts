// iptables-legacy leftovers: x_tables cannot be reached over nftables netlink, so --cleanup
// detects the legacy tables of the namespace (/proc/net/ip_tables_names) and prints commands,
// never failing because of them. The printed command is run here as an operator would, and must
// remove upstream's chains and jumps (upstream CleanupLeftovers' set) and keep everything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { runCleanup, cleanupSucceeded } from '../../src/cleanup';
import { withNetns, type TestNetns } from '../helpers/netns';

const LEGACY_V4 = [
  '*nat',
  ':PREROUTING ACCEPT [0:0]', ':INPUT ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':POSTROUTING ACCEPT [0:0]',
  ':KUBE-SEP-IT2ZTR26TO4XFPTO - [0:0]', ':KUBE-SERVICES - [0:0]', ':KUBE-SVC-NPX46M4PTMTKRN6Y - [0:0]',
  '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
  '-A PREROUTING -p tcp -m tcp --dport 22 -j ACCEPT',
  '-A KUBE-SEP-IT2ZTR26TO4XFPTO -p tcp -m tcp -j DNAT --to-destination 10.0.0.5:6443',
  '-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m tcp --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -j KUBE-SEP-IT2ZTR26TO4XFPTO',
  'COMMIT',
  '*filter',
  ':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':DOCKER - [0:0]', ':KUBE-FIREWALL - [0:0]',
  '-A INPUT -j KUBE-FIREWALL', '-A FORWARD -j DOCKER',
  'COMMIT', '',
].join('\n');

const saved = (ns: TestNetns) => ns.exec('iptables-legacy-save', []).split('\n').filter((l) => !l.startsWith('#')).join('\n');

/** A process inside the namespace, whose /proc/<pid>/net is that namespace's /proc/net. */
async function withProcNet<T>(ns: TestNetns, fn: (procNet: string) => Promise<T>): Promise<T> {
  const child = spawn('ip', ['netns', 'exec', ns.name, 'sleep', '60'], { stdio: 'ignore' });
  try {
    const inside = () => {
      try { return readlinkSync(`/proc/${child.pid}/ns/net`) !== readlinkSync('/proc/self/ns/net'); } catch { return false; }
    };
    for (let i = 0; i < 500 && !inside(); i++) await new Promise((r) => setTimeout(r, 20));
    if (!inside()) throw new Error(`the helper process did not enter netns ${ns.name}`);
    return await fn(`/proc/${child.pid}/net`);
  } finally {
    child.kill();
  }
}

test('no legacy tables: no warning, no commands', async () => {
  await withNetns(async (ns) => {
    await withProcNet(ns, async (procNet) => {
      const warnings: string[] = [];
      const r = await runCleanup({ netns: ns.path, procNet, log: { info: () => {}, error: () => {}, warn: (_o: object, m: string) => { warnings.push(m); } } });
      assert.deepEqual(r.upstream.legacy, { ipv4: [], ipv6: [], commands: [] });
      assert.deepEqual(warnings, []);
    });
  }, 'kpn-legacy');
});

test('legacy tables: a warning with the commands, exit 0; the command removes upstream\'s chains and keeps the rest', async () => {
  await withNetns(async (ns) => {
    ns.exec('iptables-legacy-restore', [], LEGACY_V4);
    await withProcNet(ns, async (procNet) => {
      const warnings: { msg: string; commands?: string[] }[] = [];
      const log = { info: () => {}, error: () => {}, warn: (o: { commands?: string[] }, msg: string) => { warnings.push({ msg, commands: o.commands }); } };
      const r = await runCleanup({ netns: ns.path, procNet, log });
      assert.ok(cleanupSucceeded(r));
      assert.deepEqual(r.upstream.legacy.ipv4, ['filter', 'nat']);
      assert.deepEqual(r.upstream.legacy.ipv6, []);
      assert.equal(r.upstream.legacy.commands.length, 1);
      assert.match(r.upstream.legacy.commands[0], /^iptables-legacy-save \| grep -v -E '.*' \| iptables-legacy-restore$/);
      assert.equal(warnings.length, 1);
      assert.deepEqual(warnings[0].commands, r.upstream.legacy.commands);
    });
    ns.exec('sh', ['-c', (await legacyCommand(ns))]);
    assert.equal(saved(ns), [
      '*filter', ':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':DOCKER - [0:0]', ':KUBE-FIREWALL - [0:0]',
      '-A INPUT -j KUBE-FIREWALL', '-A FORWARD -j DOCKER', 'COMMIT',
      '*nat', ':PREROUTING ACCEPT [0:0]', ':INPUT ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':POSTROUTING ACCEPT [0:0]',
      '-A PREROUTING -p tcp -m tcp --dport 22 -j ACCEPT', 'COMMIT', '',
    ].join('\n'));
  }, 'kpn-legacy');
});

async function legacyCommand(ns: TestNetns): Promise<string> {
  return withProcNet(ns, async (procNet) => {
    const r = await runCleanup({ netns: ns.path, procNet, log: { info: () => {}, warn: () => {}, error: () => {} } });
    return r.upstream.legacy.commands[0];
  });
}
