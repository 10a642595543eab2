// --cleanup in a fresh network namespace: removes the kube-proxy and kube-proxy-ipvs tables (ip and
// ip6), leaves other tables alone, and succeeds when there is nothing to remove. This kernel has no
// IPVS: that part finds nothing (test/cleanup/ipvs-cleanup.test.ts and the guest test cover it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCleanup } from '../../src/cleanup';
import { withNetns } from '../helpers/netns';

function recorder() {
  const entries: { level: string; msg: string; table?: string }[] = [];
  return {
    entries,
    log: {
      info: (o: { table?: string }, msg: string) => { entries.push({ level: 'info', msg, table: o.table }); },
      warn: (o: { table?: string }, msg: string) => { entries.push({ level: 'warn', msg, table: o.table }); },
      error: (o: { table?: string }, msg: string) => { entries.push({ level: 'error', msg, table: o.table }); },
    },
  };
}

const NO_IPVS = { deletedServices: [], keptServices: [], link: 'absent', deletedAddresses: [], failed: [] };
const IPVS_TABLES = ['ip kube-proxy-ipvs', 'ip6 kube-proxy-ipvs'];
/** Nothing of upstream kube-proxy's here (test/cleanup/upstream-cleanup.test.ts has it). */
const NO_UPSTREAM = {
  iptables: { tables: [], failed: [] }, ipsets: { destroyed: [], inUse: [], failed: [] }, legacy: { ipv4: [], ipv6: [], commands: [] },
};
/** A /proc/net without ip_tables_names: no iptables-legacy tables, whatever the host has. */
const procNet = '/nonexistent';

const tables = (ns: { nftJson(): Array<Record<string, any>> }) =>
  ns.nftJson().filter((o) => o.table).map((o) => `${o.table.family} ${o.table.name}`).sort();

test('cleanup deletes both kube-proxy tables with their contents, and nothing else', async () => {
  await withNetns(async (ns) => {
    ns.exec('nft', ['-f', '-'], [
      'table ip kube-proxy {',
      '  set s { type ipv4_addr; elements = { 10.0.0.1 }; }',
      '  chain c { type nat hook prerouting priority -100; ip daddr @s counter accept; }',
      '}',
      'table ip6 kube-proxy {', '  chain c { type filter hook input priority 0; }', '}',
      'table ip other {', '  chain keep { type filter hook input priority 0; }', '}',
      'table inet kube-proxy {', '  chain not-ours { type filter hook input priority 0; }', '}',
      'table ip kube-proxy-ipvs {', '  chain c { type filter hook input priority 0; }', '}',
    ].join('\n'));
    const r = recorder();
    const result = await runCleanup({ netns: ns.path, log: r.log, procNet });
    assert.deepEqual(result, { deleted: ['ip kube-proxy', 'ip6 kube-proxy', 'ip kube-proxy-ipvs'], absent: ['ip6 kube-proxy-ipvs'], failed: [], ipvs: NO_IPVS, upstream: NO_UPSTREAM });
    assert.deepEqual(tables(ns), ['inet kube-proxy', 'ip other']);
    assert.deepEqual(r.entries.filter((e) => e.table).map((e) => `${e.level} ${e.table}`),
      ['info ip kube-proxy', 'info ip6 kube-proxy', 'info ip kube-proxy-ipvs', 'info ip6 kube-proxy-ipvs']);
  }, 'kpn-cleanup');
});

test('cleanup with only one of the tables present removes it and reports the other absent', async () => {
  await withNetns(async (ns) => {
    ns.nft('add', 'table', 'ip6', 'kube-proxy');
    const result = await runCleanup({ netns: ns.path, log: recorder().log, procNet });
    assert.deepEqual(result, { deleted: ['ip6 kube-proxy'], absent: ['ip kube-proxy', ...IPVS_TABLES], failed: [], ipvs: NO_IPVS, upstream: NO_UPSTREAM });
    assert.deepEqual(tables(ns), []);
  }, 'kpn-cleanup');
});

test('cleanup with nothing there succeeds', async () => {
  await withNetns(async (ns) => {
    const r = recorder();
    const result = await runCleanup({ netns: ns.path, log: r.log, procNet });
    assert.deepEqual(result, { deleted: [], absent: ['ip kube-proxy', 'ip6 kube-proxy', ...IPVS_TABLES], failed: [], ipvs: NO_IPVS, upstream: NO_UPSTREAM });
    assert.ok(r.entries.every((e) => e.level === 'info'));
  }, 'kpn-cleanup');
});
