// An upgrade from a version that gave each ServicePort with loadBalancerSourceRanges a chain of its
// own (`firewall-HASH-ns/name/proto/port`: `ip saddr <range> return` per allowed source, then
// `drop`), dispatched through `firewall-ips` as a verdict map: the new proxy's first sync adopts that
// table, the old chains and the verdict map go, and the firewall works from the new sets. Checked
// with connections from this namespace (the filter output hook runs the same firewall-check).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns, type TestNetns } from '../../helpers/netns';
import { ep, snapshot, sp } from './fixtures';
import { changed, freshFullSync, listOurTables, normalizedRuleset, proxierIn } from './kernel-helpers';
import { hashAndTruncate, servicePortNameBase } from '../../../src/proxier/nftables/names';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const lb = sp('lb', { clusterIP: '172.30.0.30', loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24', '192.168.0.0/24'] });
const six = sp('lb6', { key: 'ns1/lb6:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::30', loadBalancerIPs: ['2001:db8::30'], loadBalancerSourceRanges: ['2001:db8:1::/48'] });
const entries: [ServicePort, Endpoint[]][] = [[lb, [ep('10.180.1.1', 8080)]], [six, [ep('fd00:10::1', 8080)]]];
const oldChain = (s: ServicePort) => `firewall-${hashAndTruncate(servicePortNameBase(s))}`;

/** The old layout's firewall objects, as that version programmed them, in one family. */
function oldFirewall(family: 'ip' | 'ip6', s: ServicePort, sources: string[]): string[] {
  const t = `${family} kube-proxy`;
  const addr = family === 'ip' ? 'ipv4_addr' : 'ipv6_addr';
  const chain = oldChain(s);
  return [
    `add table ${t}`,
    `add chain ${t} filter-prerouting { type filter hook prerouting priority -110; }`,
    `add chain ${t} filter-output { type filter hook output priority -110; }`,
    `add chain ${t} firewall-check`,
    `add chain ${t} ${chain}`,
    `add map ${t} firewall-ips { type ${addr} . inet_proto . inet_service : verdict; comment "destinations that are subject to LoadBalancerSourceRanges"; }`,
    `add rule ${t} filter-prerouting ct state != new return`,
    `add rule ${t} filter-prerouting jump firewall-check`,
    `add rule ${t} filter-output ct state != new return`,
    `add rule ${t} filter-output jump firewall-check`,
    `add rule ${t} firewall-check ${family} daddr . meta l4proto . th dport vmap @firewall-ips`,
    ...sources.map((src) => `add rule ${t} ${chain} ${family} saddr ${src} return`),
    `add rule ${t} ${chain} drop`,
    `add element ${t} firewall-ips { ${s.loadBalancerIPs[0]} . tcp . 80 : goto ${chain} }`,
  ];
}

/**
 * Connects to `host` port 80 from each source (addresses of this namespace, as is the endpoint, which
 * answers): 'ok' or the error, per source.
 */
function connectFrom(ns: TestNetns, host: string, sources: string[]): Record<string, string> {
  const script = `const net=require('net');const srv=net.createServer((c)=>c.end('hi')).listen(8080,'10.180.1.1',async()=>{
    const out={};for(const from of ${JSON.stringify(sources)}){out[from]=await new Promise((res)=>{
      const s=net.connect({host:'${host}',port:80,localAddress:from});const t=setTimeout(()=>{s.destroy();res('timeout')},1000);
      s.on('data',()=>{clearTimeout(t);s.destroy();res('ok')});s.on('error',(e)=>{clearTimeout(t);res(e.code)})})}
    console.log(JSON.stringify(out));srv.close()})`;
  return JSON.parse(ns.exec('node', ['-e', script]));
}

test('an older table with a firewall chain per ServicePort and firewall-ips as a verdict map is adopted: the chains go, the firewall works', async () => {
  const expected = await freshFullSync(entries);
  await withNetns(async (ns) => {
    ns.exec('nft', ['-f', '-'], [
      ...oldFirewall('ip', lb, ['203.0.113.0/24', '192.168.0.0/24', '5.6.7.8']),
      ...oldFirewall('ip6', six, ['2001:db8:1::/48']),
    ].join('\n') + '\n');
    assert.match(listOurTables(ns), new RegExp(`goto ${oldChain(lb).replace(/[/.]/g, '\\$&')}`));
    const { proxier, nft } = proxierIn(ns);
    try {
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
    } finally { nft.close(); }
    assert.deepEqual(normalizedRuleset(ns), expected);
    for (const [family, s] of [['ip', lb], ['ip6', six]] as const) {
      const listed = listOurTables(ns, family);
      assert.ok(!listed.includes(oldChain(s)), `${family}: the old chain is gone`);
      assert.match(listed, /\tset firewall-ips \{/, `${family}: firewall-ips is a plain set`);
      assert.match(listed, /\tset firewall-allow \{/);
    }
    // A veth pair (no dummy driver everywhere): the sources and the endpoint on one end, the LB IP routed out of it.
    ns.exec('ip', ['link', 'add', 'v0', 'type', 'veth', 'peer', 'name', 'v1']);
    for (const dev of ['v0', 'v1']) ns.exec('ip', ['link', 'set', dev, 'up']);
    for (const a of ['203.0.113.5/32', '198.18.9.9/32', '10.180.1.1/32']) ns.exec('ip', ['addr', 'add', a, 'dev', 'v0']);
    for (const vip of ['5.6.7.8/32', '172.30.0.30/32']) ns.exec('ip', ['route', 'add', vip, 'dev', 'v0']);
    assert.deepEqual(connectFrom(ns, '5.6.7.8', ['203.0.113.5', '198.18.9.9']), { '203.0.113.5': 'ok', '198.18.9.9': 'timeout' });
    // The refused source reaches the Service through its ClusterIP, which has no firewall.
    assert.deepEqual(connectFrom(ns, '172.30.0.30', ['198.18.9.9']), { '198.18.9.9': 'ok' });
  });
});
