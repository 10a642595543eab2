// NftablesProxier against the real kernel, each test in a fresh network namespace: full sync,
// partial sync, removal, start-up adoption, refused Services, failure recovery, affinity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { endpointChainName, serviceChainNames } from '../../../src/proxier/nftables/names';
import { ep, snapshot, sp } from './fixtures';
import { changed, chainNames, elementsOf, freshFullSync, normalizedRuleset, proxierIn } from './kernel-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const svc1 = sp('svc1', { nodePort: 30080 });
const svc2 = sp('svc2', { clusterIP: '172.30.0.42', loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24'] });
const svc3 = sp('svc3', { clusterIP: '172.30.0.43', affinityTimeoutSeconds: 600 });
const svc6 = sp('svc6', { key: 'ns1/svc6:p80/TCP', family: 'IPv6', clusterIP: 'fd00:30::41' });
const base: [ServicePort, Endpoint[]][] = [
  [svc1, [ep('10.180.0.1'), ep('10.180.0.2')]],
  [svc2, [ep('10.180.1.1', 8080)]],
  [svc3, [ep('10.180.2.1'), ep('10.180.2.2')]],
  [svc6, [ep('fd00:10::1')]],
];

test('full sync programs both families: shared chains, maps and elements; chains only for affinity and firewalls', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      const r = await proxier.sync(snapshot(base), changed(), true);
      assert.deepEqual(r, { full: true, ok: true });
      const chains = chainNames(ns);
      for (const c of [serviceChainNames(svc3).cluster, serviceChainNames(svc2).firewall, endpointChainName(svc3, { ip: '10.180.2.2', port: 80 }),
        'services', 'nat-prerouting', 'masquerading', 'cluster-ip-traffic', 'select-endpoint']) {
        assert.ok(chains.includes(c), `chain ${c} missing`);
      }
      assert.ok(!chains.some((c) => c.includes('/svc1/')), 'a Service without affinity has no chain');
      assert.match(elementsOf(ns, 'service-ips').join(), /172\.30\.0\.43.*goto.*service-.*ns1\/svc3\/tcp\/p80/);
      assert.match(elementsOf(ns, 'cluster-ip-ports').join(), /172\.30\.0\.41/);
      assert.equal(elementsOf(ns, 'endpoints-2').length, 2);
      assert.match(elementsOf(ns, 'endpoints-2').join(), /10\.180\.0\.2/);
      assert.match(elementsOf(ns, 'external-ports').join(), /5\.6\.7\.8/);
      assert.match(elementsOf(ns, 'nodeports').join(), /30080/);
      assert.equal(elementsOf(ns, 'nodeport-endpoints-2').length, 2);
      assert.match(elementsOf(ns, 'firewall-ips').join(), /5\.6\.7\.8/);
      assert.equal(elementsOf(ns, 'cluster-ips').length, 3);
      assert.match(elementsOf(ns, 'endpoints-1', 'ip6').join(), /fd00:30::41/);
      assert.match(elementsOf(ns, 'hairpin', 'ip6').join(), /fd00:10::1/);
      const tables = new Set(ns.nftJson().filter((i) => i.table).map((i) => `${i.table.family} ${i.table.name}`));
      assert.deepEqual([...tables].sort(), ['ip kube-proxy', 'ip6 kube-proxy']);
      const sets = ns.nftJson().map((i) => i.set ?? i.map).filter((x) => x?.table === 'kube-proxy').map((x) => `${x.family} ${x.name}`);
      const maps = sets.filter((n) => /endpoints-/.test(n)).sort();
      assert.deepEqual(maps, ['ip endpoints-1', 'ip endpoints-2', 'ip nodeport-endpoints-2', 'ip6 endpoints-1']);
      assert.equal(sets.length - maps.length, 2 * 15, 'fixed sets per family, none per Service');
    } finally { nft.close(); }
  });
});

test("partial sync after one Service's endpoints change writes only that Service's elements, and equals a fresh full sync", async () => {
  const after: [ServicePort, Endpoint[]][] = base.map(([s, e]) => (s === svc1 ? [s, [ep('10.180.0.2'), ep('10.180.0.3')]] : [s, e]));
  const expected = await freshFullSync(after);
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      await proxier.sync(snapshot(base), changed(), true);
      const r = await proxier.sync(snapshot(after), changed(svc1.key), false);
      assert.deepEqual(r, { full: false, ok: true });
      const tx = proxier.lastTransaction!;
      const ops = Array.from({ length: tx.opCount }, (_, i) => tx.describe(i));
      // endpoints-2 and nodeport-endpoints-2: both slots change (delete + add); hairpin: one out, one in.
      assert.ok(tx.opCount <= 10, `too many ops:\n${ops.join('\n')}`);
      for (const o of ops) assert.match(o, /^(add|delete) element ip kube-proxy (endpoints-2|nodeport-endpoints-2|hairpin) /, o);
      assert.deepEqual(normalizedRuleset(ns), expected);
    } finally { nft.close(); }
  });
});

test('a change of endpoint count moves the Service to another endpoint map; an unused map and its rule go', async () => {
  const after: [ServicePort, Endpoint[]][] = base.map(([s, e]) => (s === svc2 ? [s, [ep('10.180.1.1', 8080), ep('10.180.1.2', 8080), ep('10.180.1.3', 8080)]] : [s, e]));
  const expected = await freshFullSync(after);
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      await proxier.sync(snapshot(base), changed(), true);
      assert.equal((await proxier.sync(snapshot(after), changed(svc2.key), false)).ok, true);
      assert.equal(elementsOf(ns, 'endpoints-3').length, 6, 'ClusterIP and LB IP, three slots each');
      assert.match(ns.nft('list', 'chain', 'ip', 'kube-proxy', 'select-endpoint'), /mod 3 map @endpoints-3/);
      assert.doesNotMatch(ns.nft('list', 'chain', 'ip', 'kube-proxy', 'select-endpoint'), /@endpoints-1/);
      assert.ok(!ns.nftJson().some((i) => i.map?.name === 'endpoints-1' && i.map.family === 'ip'), 'endpoints-1 is unused and deleted');
      assert.deepEqual(normalizedRuleset(ns), expected);
      assert.equal((await proxier.sync(snapshot(base), changed(svc2.key), false)).ok, true);
      assert.deepEqual(normalizedRuleset(ns), await freshFullSync(base));
    } finally { nft.close(); }
  });
});

test('an unchanged Service costs no op; a Service change touches its elements only', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      await proxier.sync(snapshot(base), changed(), true);
      await proxier.sync(snapshot(base), changed(svc2.key), false);
      assert.equal(proxier.lastTransaction!.opCount, 0);
      const moved = base.map(([s, e]) => (s === svc2 ? [{ ...s, nodePort: 30099 }, e] : [s, e])) as [ServicePort, Endpoint[]][];
      assert.equal((await proxier.sync(snapshot(moved), changed(svc2.key), false)).ok, true);
      const tx = proxier.lastTransaction!;
      const ops = Array.from({ length: tx.opCount }, (_, i) => tx.describe(i));
      assert.ok(ops.every((o) => /30099|nodeport-endpoints-1|select-nodeport-endpoint/.test(o)), ops.join('\n'));
      assert.match(elementsOf(ns, 'nodeports').join(), /30099/);
      assert.deepEqual(normalizedRuleset(ns), await freshFullSync(moved));
    } finally { nft.close(); }
  });
});

test('Service removal deletes its chains and elements', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      await proxier.sync(snapshot(base), changed(), true);
      const rest = base.filter(([s]) => s !== svc2 && s !== svc6);
      const r = await proxier.sync(snapshot(rest), changed(svc2.key, svc6.key), false);
      assert.deepEqual(r, { full: false, ok: true });
      assert.ok(!chainNames(ns).some((c) => c.includes('/svc2/')));
      assert.ok(!chainNames(ns, 'ip6').some((c) => c.includes('/svc6/')));
      assert.doesNotMatch(elementsOf(ns, 'cluster-ip-ports').join() + elementsOf(ns, 'external-ports').join(), /5\.6\.7\.8|172\.30\.0\.42/);
      assert.deepEqual(elementsOf(ns, 'firewall-ips'), []);
      assert.equal(elementsOf(ns, 'cluster-ips').length, 2);
      assert.deepEqual(normalizedRuleset(ns), await freshFullSync(rest));
    } finally { nft.close(); }
  });
});

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

test('a Service the kernel refuses is left out and reported; the others are programmed', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      await proxier.sync(snapshot(base), changed(), true);
      const bad = sp('bad', { clusterIP: '172.30.0.50', affinityTimeoutSeconds: 60 });
      const good = sp('good', { clusterIP: '172.30.0.51' });
      // Someone made a base chain with the name our endpoint chain needs: the kernel refuses a goto to it.
      const clash = endpointChainName(bad, { ip: '10.180.9.1', port: 80 });
      ns.nft('add', 'chain', 'ip', 'kube-proxy', clash, '{ type filter hook input priority 0; }');
      const next: [ServicePort, Endpoint[]][] = [...base, [bad, [ep('10.180.9.1')]], [good, [ep('10.180.9.2')]]];
      const r = await proxier.sync(snapshot(next), changed(bad.key, good.key), false);
      assert.deepEqual(r, { full: false, ok: true });
      assert.deepEqual([...proxier.refusedServicePorts().keys()], [bad.key]);
      assert.match(proxier.refusedServicePorts().get(bad.key)!, /EOPNOTSUPP|goto/);
      assert.equal(proxier.counters.refusals, 1);
      assert.match(elementsOf(ns, 'cluster-ip-ports').join(), /172\.30\.0\.51/);
      assert.doesNotMatch(elementsOf(ns, 'service-ips').join(), /172\.30\.0\.50/);
      // A full sync retries it, refuses it again, and still programs everything else.
      assert.deepEqual(await proxier.sync(snapshot(next), changed(), true), { full: true, ok: true });
      assert.equal(proxier.counters.refusals, 2);
      assert.match(elementsOf(ns, 'cluster-ip-ports').join(), /172\.30\.0\.51/);
    } finally { nft.close(); }
  });
});

test('a failed sync is followed by a full sync that repairs the table', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      await proxier.sync(snapshot(base), changed(), true);
      // Someone deletes one of svc1's endpoint map elements behind our back.
      ns.nft('delete', 'element', 'ip', 'kube-proxy', 'endpoints-2', '{ 172.30.0.41 . tcp . 80 . 0 }');
      const after: [ServicePort, Endpoint[]][] = base.map(([s, e]) => (s === svc1 ? [s, [ep('10.180.0.2')]] : [s, e]));
      const failed = await proxier.sync(snapshot(after), changed(svc1.key), false);
      assert.equal(failed.ok, false);
      assert.match(String(failed.error), /ENOENT/);
      assert.equal(proxier.counters.refusals, 0, 'drift is not blamed on the Service');
      const repaired = await proxier.sync(snapshot(after), changed(), false);
      assert.deepEqual(repaired, { full: true, ok: true });
      assert.deepEqual(normalizedRuleset(ns), await freshFullSync(after));
    } finally { nft.close(); }
  });
});

test('session affinity: connections stick to one endpoint, and the shared set keeps its elements across full syncs', async () => {
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
      ns.exec('node', ['-e', script]);
      const flows = ns.exec('conntrack', ['-L', '-p', 'tcp', '-d', '172.30.0.43']);
      const targets = new Set([...flows.matchAll(/src=(10\.180\.2\.\d+) dst=10\.0\.0\.5/g)].map((m) => m[1]));
      assert.equal(flows.trim().split('\n').length, 8, flows);
      assert.equal(targets.size, 1, `affinity broken: ${[...targets]}`);
      assert.match(elementsOf(ns, 'affinity').join(), /10\.0\.0\.5/);
      await proxier.sync(snapshot(base), changed(), true);
      assert.match(elementsOf(ns, 'affinity').join(), /10\.0\.0\.5/, 'a full sync must not flush affinity');
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
