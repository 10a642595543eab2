// What an operator's `nft list ruleset > saved; nft -f saved` does to our tables: the listing is
// valid nft input, and loaded into a fresh namespace it lists the same ruleset again. One table
// with every kind of Service in both families, session affinity included (its lookups once listed
// as `0x... [invalid type]`, which nft -f refuses), with records the packet path made.
//
// KPN_TEST_NFT_ALT=/path/to/nft[,...] runs the same round trip with other nft builds too, each
// loading its own listing (e.g. Debian 13's nft 1.1.3; across versions nft itself does not
// round-trip: docs/nftables-ruleset.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns, type TestNetns } from '../../helpers/netns';
import { ep, snapshot, sp } from './fixtures';
import { changed, normalizedRuleset, proxierIn } from './kernel-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import type { NftablesProxierOptions } from '../../../src/proxier/nftables';

const local = (ip: string, port = 80) => ep(ip, port, { isLocal: true });
const six = (name: string, over: Partial<ServicePort>) => sp(name, { key: `ns1/${name}:p80/TCP/IPv6`, family: 'IPv6', ...over });

/** Every kind of Service the ruleset has a shape for, in both families. */
function everyKind(): [ServicePort, Endpoint[]][] {
  return [
    [sp('cluster-ip', { clusterIP: '172.30.0.10' }), [ep('10.180.0.1'), ep('10.180.0.2', 8080)]],
    [sp('node-port', { clusterIP: '172.30.0.11', nodePort: 30011 }), [ep('10.180.0.3')]],
    [sp('lb-ranges', { clusterIP: '172.30.0.12', nodePort: 30012, loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24', '192.168.0.0/24'] }),
      [ep('10.180.0.4'), ep('10.180.0.5')]],
    [sp('external-ips', { clusterIP: '172.30.0.13', externalIPs: ['198.51.100.7'] }), [ep('10.180.0.6')]],
    [sp('local-external', { clusterIP: '172.30.0.14', nodePort: 30014, loadBalancerIPs: ['5.6.7.9'], externalPolicyLocal: true, healthCheckNodePort: 31014 }),
      [local('10.0.1.5'), ep('10.180.0.7')]],
    [sp('local-external-none', { clusterIP: '172.30.0.15', nodePort: 30015, externalPolicyLocal: true, healthCheckNodePort: 31015 }), [ep('10.180.0.8')]],
    [sp('local-internal', { clusterIP: '172.30.0.16', internalPolicyLocal: true }), [local('10.0.1.6'), ep('10.180.0.9')]],
    [sp('affinity', { clusterIP: '172.30.0.17', affinityTimeoutSeconds: 600 }), [ep('10.180.1.1'), ep('10.180.1.2'), ep('10.180.1.3', 8443)]],
    // Affinity with every destination kind and Local policies: the service-, external-, local- and firewall- chains.
    [sp('affinity-all', { clusterIP: '172.30.0.18', nodePort: 30018, externalIPs: ['198.51.100.8'], loadBalancerIPs: ['5.6.7.10'],
      loadBalancerSourceRanges: ['203.0.113.0/24'], externalPolicyLocal: true, internalPolicyLocal: true, healthCheckNodePort: 31018, affinityTimeoutSeconds: 10800 }),
      [local('10.0.1.7'), local('10.0.1.8', 8080), ep('10.180.1.4')]],
    [sp('no-endpoints', { clusterIP: '172.30.0.19', nodePort: 30019 }), []],
    [sp('udp', { key: 'ns1/udp:p53/UDP', protocol: 'UDP', port: 53, clusterIP: '172.30.0.20' }), [ep('10.180.2.1', 5353)]],
    [sp('six-endpoints', { clusterIP: '172.30.0.21', nodePort: 30021 }), Array.from({ length: 6 }, (_, i) => ep(`10.180.3.${i + 1}`))],
    [sp('nine-endpoints', { clusterIP: '172.30.0.22' }), Array.from({ length: 9 }, (_, i) => ep(`10.180.4.${i + 1}`))],
    [six('six-plain', { clusterIP: 'fd00:30::10', nodePort: 30110 }), [ep('fd00:10::1'), ep('fd00:10::2')]],
    [six('six-affinity', { clusterIP: 'fd00:30::11', loadBalancerIPs: ['2001:db8::7'], loadBalancerSourceRanges: ['2001:db8:1::/48'], affinityTimeoutSeconds: 300 }),
      [ep('fd00:10::3'), ep('fd00:10::4', 8080)]],
    [six('six-none', { clusterIP: 'fd00:30::12' }), []],
    [six('six-many', { clusterIP: 'fd00:30::13' }), Array.from({ length: 5 }, (_, i) => ep(`fd00:10::1${i}`))],
  ];
}

/** Client addresses on a veth in `ns`, and routes for the ClusterIPs: connections leave through nat-output, as a pod's would. */
function clientRoutes(ns: TestNetns): void {
  ns.exec('ip', ['link', 'add', 'v0', 'type', 'veth', 'peer', 'name', 'v1']);
  ns.exec('ip', ['link', 'set', 'v0', 'up']);
  ns.exec('ip', ['link', 'set', 'v1', 'up']);
  ns.exec('ip', ['addr', 'add', '10.0.0.5/16', 'dev', 'v0']);
  ns.exec('ip', ['addr', 'add', 'fd00:10:9::5/64', 'dev', 'v0', 'nodad']);
  ns.exec('ip', ['route', 'add', '172.30.0.0/16', 'dev', 'v0']);
  ns.exec('ip', ['route', 'add', 'fd00:30::/64', 'dev', 'v0']);
}

/** One SYN to each address (nobody answers): the affinity Services' update rules write records. */
function connectOnce(ns: TestNetns, targets: [string, string][]): void {
  const script = `const net=require('net');for(const [host,from] of ${JSON.stringify(targets)}){const s=net.connect({host,port:80,localAddress:from});`
    + 's.on(\'error\',()=>{});setTimeout(()=>s.destroy(),300)}setTimeout(()=>process.exit(0),500)';
  ns.exec('node', ['-e', script]);
}

/** A listing with the time left on each affinity record taken out (it runs down between two listings). */
const steady = (listing: string): string => listing.replace(/ expires [0-9hms]+/g, '');
/** The same for normalizedRuleset's elements (JSON text inside). */
const unexpiring = (rs: Record<string, unknown>): unknown => JSON.parse(JSON.stringify(rs).replace(/,\\"expires\\":\d+/g, ''));

const NFT_BUILDS = ['nft', ...(process.env.KPN_TEST_NFT_ALT ?? '').split(',').filter(Boolean)];

for (const [name, over] of [
  ['default options', {}],
  ['nodePortAddresses, service CIDRs, masqueradeAll', { nodePortAddresses: ['192.168.0.0/24', 'primary'], serviceCIDRs: ['172.30.0.0/16', 'fd00:30::/64'], masqueradeAll: true }],
] as [string, Partial<NftablesProxierOptions>][]) {
  test(`nft list ruleset | nft -f - into a fresh namespace lists the same ruleset again (${name})`, async () => {
    await withNetns(async (ns) => {
      const { proxier, nft } = proxierIn(ns, over);
      try {
        assert.deepEqual(await proxier.sync(snapshot(everyKind()), changed(), true), { full: true, ok: true });
      } finally { nft.close(); }
      clientRoutes(ns);
      connectOnce(ns, [['172.30.0.17', '10.0.0.5'], ['172.30.0.18', '10.0.0.5'], ['fd00:30::11', 'fd00:10:9::5']]);
      for (const build of NFT_BUILDS) {
        const saved = ns.exec(build, ['list', 'ruleset']);
        assert.doesNotMatch(saved, /invalid type/, `${build} lists every rule legibly`);
        assert.match(saved, /@affinity meta l4proto tcp update @affinity/, 'the affinity lookups are there');
        assert.equal((saved.match(/elements = \{ [^}]* timeout /g) ?? []).length, 2, 'with the records the packet path made, in both families');
        await withNetns(async (fresh) => {
          fresh.exec(build, ['-f', '-'], saved);
          assert.equal(steady(fresh.exec(build, ['list', 'ruleset'])), steady(saved), `${build}: saved, loaded, listed again`);
          // A proxy starting on the restored ruleset adopts it: the same tables, the records kept. (Read
          // with the system's nft, which cannot list sets another nft version made: checked for it alone.)
          if (build !== 'nft') return;
          const restarted = proxierIn(fresh, over);
          try {
            assert.deepEqual(await restarted.proxier.sync(snapshot(everyKind()), changed(), false), { full: true, ok: true });
          } finally { restarted.nft.close(); }
          assert.deepEqual(unexpiring(normalizedRuleset(fresh)), unexpiring(normalizedRuleset(ns)), `${build}: the proxy's sync over the restored ruleset`);
        });
      }
    });
  });
}
