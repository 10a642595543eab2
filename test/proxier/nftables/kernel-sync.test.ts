// NftablesProxier against the real kernel, for what only the kernel shows: a table another tool
// (nft) left behind is adopted, session affinity holds for real connections, the rendered script
// is valid nft input. The proxier's logic runs on the fake kernel in sync.test.ts, edge.test.ts
// and repair.test.ts; kernel-vs-fake.test.ts checks that both kernels end up with the same tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { ep, fourServices, snapshot, sp } from './fixtures';
import { changed, elementsOf, freshFullSync, normalizedRuleset, proxierIn } from './kernel-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const { svc1, svc2, svc3, svc6, entries: base } = fourServices();

test('start-up adopts a pre-existing table: stale chains and sets go, no cleanup of other tables', async () => {
  const expected = await freshFullSync(base);
  await withNetns(async (ns) => {
    ns.exec('nft', ['-f', '-'], [
      'add table ip kube-proxy',
      'add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -90; }',
      'add chain ip kube-proxy service-AAAAAAAA-ns9/old/tcp/p80',
      'add chain ip kube-proxy endpoint-BBBBBBBB-ns9/old/tcp/p80__10.9.9.9/80',
      'add rule ip kube-proxy service-AAAAAAAA-ns9/old/tcp/p80 goto endpoint-BBBBBBBB-ns9/old/tcp/p80__10.9.9.9/80',
      'add set ip kube-proxy affinity-CCCCCCCC-ns9/old/tcp/p80__10.9.9.9/80 { type ipv4_addr; flags dynamic,timeout; timeout 3h; }',
      'add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict; }',
      'add element ip kube-proxy service-ips { 172.30.9.9 . tcp . 80 : goto service-AAAAAAAA-ns9/old/tcp/p80 }',
      'add set ip kube-proxy cluster-ips { type ipv6_addr; }',
      // Same name and key as a map we want, other data: it must be replaced, not written into.
      'add map ip kube-proxy endpoints-2 { typeof ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr; }',
      'add table ip other', 'add chain ip other keep',
    ].join('\n') + '\n');
    const { proxier, nft } = proxierIn(ns);
    try {
      assert.deepEqual(await proxier.sync(snapshot(base), changed(), false), { full: true, ok: true });
      assert.deepEqual(normalizedRuleset(ns), expected);
      assert.match(ns.nft('list', 'table', 'ip', 'other'), /chain keep/);
    } finally { nft.close(); }
  });
});


test('session affinity: connections stick to one endpoint, and the records map keeps its elements across full syncs', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      await proxier.sync(snapshot(base), changed(), true);
      ns.exec('ip', ['link', 'add', 'v0', 'type', 'veth', 'peer', 'name', 'v1']);
      ns.exec('ip', ['link', 'set', 'v0', 'up']);
      ns.exec('ip', ['link', 'set', 'v1', 'up']);
      ns.exec('ip', ['addr', 'add', '10.0.0.5/16', 'dev', 'v0']);
      ns.exec('ip', ['route', 'add', '172.30.0.0/16', 'dev', 'v0']);
      ns.exec('ip', ['route', 'add', '10.180.0.0/16', 'dev', 'v0']);
      // Eight SYNs (nobody answers): each goes through nat-output and is DNATed.
      const script = `let n=8;const net=require('net');for(let i=0;i<8;i++){const s=net.connect({host:'172.30.0.43',port:80,localAddress:'10.0.0.5'});`
        + `s.on('error',()=>{});setTimeout(()=>s.destroy(),100*(i+1))}setTimeout(()=>process.exit(0),900)`;
      ns.exec(process.execPath, ['-e', script]);
      const flows = ns.exec('conntrack', ['-L', '-p', 'tcp', '-d', '172.30.0.43']);
      const targets = new Set([...flows.matchAll(/src=(10\.180\.2\.\d+) dst=10\.0\.0\.5/g)].map((m) => m[1]));
      assert.equal(flows.trim().split('\n').length, 8, flows);
      assert.equal(targets.size, 1, `affinity broken: ${[...targets]}`);
      assert.match(elementsOf(ns, 'affinity-records').join(), /"10\.0\.0\.5","172\.30\.0\.43","tcp",80\]/);
      await proxier.sync(snapshot(base), changed(), true);
      assert.match(elementsOf(ns, 'affinity-records').join(), /"10\.0\.0\.5","172\.30\.0\.43","tcp",80\]/, 'a full sync must not flush the records it still wants');
    } finally { nft.close(); }
  });
});


test('the rendered desired script is valid nft -f input (Services without affinity)', async () => {
  const { compileBase, compileService, buildContext } = await import('../../../src/proxier/nftables');
  const { setNamesOf } = await import('../../../src/proxier/nftables/compile-base');
  const { renderDesiredScript } = await import('../../../src/proxier/nftables/render-script');
  const { defaultInputs, node, selected } = await import('./fixtures');
  const c = buildContext({ ...defaultInputs, nodePortAddresses: ['192.168.0.0/24', 'primary'], serviceCIDRs: ['172.30.0.0/16'] }, 'ip', node);
  const local = sp('loc', { clusterIP: '172.30.0.44', nodePort: 30081, externalPolicyLocal: true, internalPolicyLocal: true });
  const objs = [
    compileService(svc1, selected([ep('10.180.0.1')]), c), compileService(svc2, selected([ep('10.180.1.1', 8080)]), c),
    compileService(local, selected([ep('10.180.3.1', 80, { isLocal: true }), ep('10.180.3.2')]), c),
    compileService(sp('none', { clusterIP: '172.30.0.45', nodePort: 30082 }), selected([]), c),
  ];
  await withNetns((ns) => {
    ns.exec('nft', ['-f', '-'], renderDesiredScript(compileBase(c, setNamesOf(objs)), objs));
    assert.match(ns.nft('list', 'map', 'ip', 'kube-proxy', 'nodeport-local-endpoints-1'), /tcp \. 30081 \. 0 : 10\.180\.3\.1 \. 80/);
  });
});

test('counts above 4: nft lists the table (the count-bit sets and the counts\' chains), and its listing is valid nft -f input', async () => {
  const big = sp('big', { clusterIP: '172.30.0.46', nodePort: 30083 });
  const big6 = sp('big6', { key: 'ns1/big6:p80/TCP', family: 'IPv6', clusterIP: 'fd00:30::46', externalIPs: ['fd00:99::1'], externalPolicyLocal: true });
  const entries: [ServicePort, Endpoint[]][] = [
    [svc1, [ep('10.180.0.1')]],
    [big, Array.from({ length: 7 }, (_, i) => ep(`10.180.7.${i + 1}`))],
    [big6, Array.from({ length: 10 }, (_, i) => ep(`fd00:10::7:${i + 1}`, 80, { isLocal: i < 5 }))],
  ];
  const listing = await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), true), { full: true, ok: true });
      // nft must never fail to list our table: an operator's `nft list ruleset` is how they look at it.
      const text = ns.nft('list', 'ruleset');
      // 7 - 4 = 0b11 (IPv4 alone: one test), 10 - 4 = 0b110 (IPv6: with 5 = 0b1, bit 2 tells them apart).
      assert.match(text, /ip daddr \. meta l4proto \. th dport @endpoints-over-4-bit-[01] goto select-endpoint-7/);
      assert.match(text, /meta l4proto \. th dport @nodeport-endpoints-over-4-bit-[01] goto select-nodeport-endpoint-7/);
      assert.match(text, /ip6 daddr \. meta l4proto \. th dport @endpoints-over-4-bit-2 goto select-endpoint-10/);
      assert.match(text, /ip6 daddr \. meta l4proto \. th dport @local-endpoints-over-4-bit-0 goto select-local-endpoint-5/);
      assert.match(text, /chain select-endpoint-10 \{\n\s+dnat ip6 to ip6 daddr \. meta l4proto \. th dport \. numgen random mod 10 map @endpoints-10/);
      assert.match(ns.nft('get', 'element', 'ip', 'kube-proxy', 'endpoints-over-4-bit-1', '{ 172.30.0.46 . tcp . 80 }'), /172\.30\.0\.46 \. tcp \. 80/);
      assert.doesNotMatch(text, /endpoint-chains/);
      return { text, table: normalizedRuleset(ns) };
    } finally { nft.close(); }
  });
  await withNetns((ns) => {
    ns.exec('nft', ['-f', '-'], listing.text);
    assert.deepEqual(normalizedRuleset(ns), listing.table);
  });
});
