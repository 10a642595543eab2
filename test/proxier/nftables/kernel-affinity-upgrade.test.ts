// An upgrade from a version that gave each IPv4 ServicePort with session affinity chains of its own
// (`service-HASH-ns/name/proto/port`, one lookup rule per endpoint in the shared `affinity` set,
// dispatched through the `service-ips` verdict map): the new proxy's first sync adopts that table,
// the old chain, the verdict maps and the old set go, and the records live in `affinity-records`
// from then on. The old set's records are not carried over (a client picks once more).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { ep, snapshot, sp } from './fixtures';
import { changed, freshFullSync, listOurTables, normalizedRuleset, proxierIn } from './kernel-helpers';
import { hashAndTruncate, servicePortNameBase } from '../../../src/proxier/nftables/names';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const VIP = '172.30.0.31';
const EP = '10.180.1.1';
const sticky = sp('sticky', { clusterIP: VIP, affinityTimeoutSeconds: 600 });
const entries: [ServicePort, Endpoint[]][] = [[sticky, [ep(EP, 8080)]]];
const oldChain = `service-${hashAndTruncate(servicePortNameBase(sticky))}`;

/** The old layout's affinity objects, as that version programmed them. */
function oldAffinity(): string[] {
  const t = 'ip kube-proxy';
  const update = `meta l4proto tcp update @affinity { ip saddr . ${VIP} . 80 . ${EP} . 8080 timeout 600s } dnat to ${EP}:8080`;
  return [
    `add table ${t}`,
    `add chain ${t} nat-prerouting { type nat hook prerouting priority -100; }`,
    `add chain ${t} nat-output { type nat hook output priority -100; }`,
    `add chain ${t} services`,
    `add chain ${t} ${oldChain}`,
    `add map ${t} service-ips { type ipv4_addr . inet_proto . inet_service : verdict; comment "Services with session affinity (per-Service chains)"; }`,
    `add set ${t} affinity { type ipv4_addr . ipv4_addr . inet_service . ipv4_addr . inet_service; flags timeout,dynamic; size 262144; }`,
    `add rule ${t} nat-prerouting jump services`,
    `add rule ${t} nat-output jump services`,
    `add rule ${t} services ip daddr . meta l4proto . th dport vmap @service-ips`,
    `add rule ${t} ${oldChain} ip saddr . ip daddr & ${VIP} | ${VIP} . th dport & 80 | 80 . ip daddr & ${EP} | ${EP} . th dport & 8080 | 8080 @affinity ${update}`,
    `add rule ${t} ${oldChain} ${update}`,
    `add element ${t} service-ips { ${VIP} . tcp . 80 : goto ${oldChain} }`,
    `add element ${t} affinity { 10.0.0.5 . ${VIP} . 80 . ${EP} . 8080 timeout 600s }`,
  ];
}

test('an older table with a chain per affinity ServicePort and the shared affinity set is adopted: they go, records are made in affinity-records', async () => {
  const expected = await freshFullSync(entries);
  await withNetns(async (ns) => {
    ns.exec('nft', ['-f', '-'], oldAffinity().join('\n') + '\n');
    assert.match(listOurTables(ns, 'ip'), /\tset affinity \{/);
    const { proxier, nft } = proxierIn(ns);
    try {
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
    } finally { nft.close(); }
    assert.deepEqual(normalizedRuleset(ns), expected);
    const listed = listOurTables(ns, 'ip');
    assert.ok(!listed.includes(oldChain), 'the old chain is gone');
    assert.doesNotMatch(listed, /\t(set affinity|map service-ips|map service-nodeports) \{/, 'so are the old set and verdict maps');
    assert.match(listed, /\tmap affinity-records \{/);
    // A connection from this namespace: DNATed by the new shape, recorded after it.
    ns.exec('ip', ['link', 'add', 'v0', 'type', 'veth', 'peer', 'name', 'v1']);
    for (const dev of ['v0', 'v1']) ns.exec('ip', ['link', 'set', dev, 'up']);
    for (const a of ['10.0.0.5/32', `${EP}/32`]) ns.exec('ip', ['addr', 'add', a, 'dev', 'v0']);
    ns.exec('ip', ['route', 'add', `${VIP}/32`, 'dev', 'v0']);
    const script = `const net=require('net');const srv=net.createServer((c)=>c.end('hi')).listen(8080,'${EP}',()=>{
      const s=net.connect({host:'${VIP}',port:80,localAddress:'10.0.0.5'});s.on('data',(d)=>{console.log(String(d));s.destroy();srv.close()});
      s.on('error',(e)=>{console.log(e.code);srv.close()})})`;
    assert.equal(ns.exec('node', ['-e', script]).trim(), 'hi');
    assert.match(ns.nft('list', 'map', 'ip', 'kube-proxy', 'affinity-records'), new RegExp(`10\\.0\\.0\\.5 \\. ${VIP.replace(/\./g, '\\.')} \\. tcp \\. 80 timeout 10m expires \\S+ : ${EP.replace(/\./g, '\\.')} \\. 8080`));
  });
});
