// `--dry-run` and `--dry-run --diff` against a real kernel (fresh namespaces) and the test API server:
// the script, loaded with `nft -f` into an empty namespace, makes the tables the proxy's own first sync
// makes; the dry run touches nothing; the diff sees exactly what was changed behind the proxy's back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runDryRun, type DryRunOptions } from '../../src/commands/dry-run';
import { startProxy } from '../../src/app/proxy-app';
import { parseCommandLine } from '../../src/config';
import { createLogger } from '../../src/log';
import { TestApiServer } from '../apiserver/server';
import { createNetns, withNetns, type TestNetns } from '../helpers/netns';
import { freePort } from '../traffic/harness';
import { endpointSlice, NODE_NAME, OTHER_NODE, namespace, node, service } from '../traffic/fixtures';
import { normalizedRuleset } from '../proxier/nftables/kernel-helpers';

const quiet = createLogger({ format: 'json', verbosity: 0, destination: { write: () => true } });

/** ClusterIP, NodePort with Local policy, session affinity, no endpoints, an IPv6 Service with affinity (its own chain). */
function populate(api: TestApiServer): void {
  api.create('nodes', node(NODE_NAME, '192.0.2.10'));
  api.create('namespaces', namespace('default'));
  const web = [{ name: 'http', port: 80, targetPort: 8080 }];
  api.create('services', service('web', { clusterIP: '10.96.0.10', ports: web }));
  api.create('endpointslices', endpointSlice('web', 'web-1', { ports: web, endpoints: [
    { ip: '10.244.1.5' }, { ip: '10.244.2.6', nodeName: OTHER_NODE }, { ip: '10.244.1.7', ready: false, serving: false },
  ] }));
  const loc = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }];
  api.create('services', service('local', { clusterIP: '10.96.0.11', ports: loc, type: 'NodePort', externalTrafficPolicy: 'Local' }));
  api.create('endpointslices', endpointSlice('local', 'local-1', { ports: loc, endpoints: [{ ip: '10.244.1.8' }, { ip: '10.244.2.9', nodeName: OTHER_NODE }] }));
  const dns = [{ name: 'dns', port: 53, protocol: 'UDP' as const }];
  api.create('services', service('sticky', { clusterIP: '10.96.0.12', ports: dns, affinitySeconds: 600 }));
  api.create('endpointslices', endpointSlice('sticky', 'sticky-1', { ports: dns, endpoints: [{ ip: '10.244.1.10' }, { ip: '10.244.1.11' }] }));
  api.create('services', service('empty', { clusterIP: '10.96.0.13', ports: [{ port: 443 }] }));
  // LoadBalancers with several source ranges: firewall-allow's interval elements, in both families.
  const lb = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30081 }];
  api.create('services', service('ranges', { clusterIP: '10.96.0.14', ports: lb, type: 'LoadBalancer', loadBalancerIPs: ['203.0.113.40', '203.0.113.41'],
    loadBalancerSourceRanges: ['198.51.100.0/24', '198.51.100.128/25', '192.0.2.0/24', '10.0.0.0/8'] }));
  api.create('endpointslices', endpointSlice('ranges', 'ranges-1', { ports: lb, endpoints: [{ ip: '10.244.1.12' }] }));
  api.create('services', service('ranges6', { clusterIP: 'fd00:96::21', ports: [{ name: 'http', port: 80, nodePort: 30082 }], type: 'LoadBalancer',
    loadBalancerIPs: ['2001:db8::40'], loadBalancerSourceRanges: ['2001:db8:1::/48', '2001:db8:2::/64', 'fd00:99::/32'] }));
  api.create('endpointslices', endpointSlice('ranges6', 'ranges6-1', { ports: [{ name: 'http', port: 80 }], endpoints: [{ ip: 'fd00:244::6' }] }));
  const v6 = [{ name: 'http', port: 80 }];
  api.create('services', service('six', { clusterIP: 'fd00:96::20', ports: v6, affinitySeconds: 300 }));
  api.create('endpointslices', endpointSlice('six', 'six-1', { ports: v6, endpoints: [{ ip: 'fd00:244::5' }] }));
}

async function flags(extra: string[] = []) {
  const cl = parseCommandLine(['--proxy-mode=nftables', `--hostname-override=${NODE_NAME}`, '--cluster-cidr=10.244.0.0/16,fd00:244::/64',
    `--healthz-bind-address=127.0.0.1:${await freePort()}`, `--metrics-bind-address=127.0.0.1:${await freePort()}`, ...extra]);
  assert.deepEqual(cl.errors, []);
  return cl.config;
}

async function dryRun(api: TestApiServer, o: Partial<DryRunOptions> = {}): Promise<string> {
  let text = '';
  await runDryRun({ config: await flags(), log: quiet, master: api.url, diff: false, out: { write: (t) => { text += t; } }, ...o });
  return text;
}

const tablesIn = (ns: TestNetns): string => ns.nft('list', 'tables');

/**
 * Loads `script` with nft -f, after `nft -c -f` has checked the whole of it without committing
 * (the session-affinity lookups included: nft 1.0.6 once could not parse them, and the output
 * said so in a `# note:` line).
 */
function load(ns: TestNetns, script: string): void {
  ns.exec('nft', ['-c', '-f', '-'], script);
  assert.equal(tablesIn(ns), '', 'nft -c committed nothing');
  ns.exec('nft', ['-f', '-'], script);
}

describe('--dry-run', { timeout: 120_000 }, () => {
  const api = new TestApiServer({ bookmarkIntervalMs: 0 });
  let synced: TestNetns;
  /** Our tables as the proxy's first sync made them in `synced`. */
  let programmed: Record<string, unknown>;

  before(async () => {
    await api.start();
    populate(api);
    synced = createNetns('kpn-dry');
    const proxy = await startProxy({ config: await flags(), log: quiet, netns: synced.path, master: api.url, healthCheckAddresses: ['127.0.0.1'] });
    try {
      const first = await proxy.nextSync();
      assert.equal(first.ok, true, String(first.error));
    } finally {
      // Stopped: its guard would repair what the diff tests change behind its back.
      await proxy.stop();
    }
    programmed = normalizedRuleset(synced);
  });

  after(async () => {
    synced?.destroy();
    await api.stop();
  });

  it('prints a script that nft -f loads into an empty namespace as the tables the proxy\'s first sync made, and touches nothing', async () => {
    await withNetns(async (ns) => {
      const script = await dryRun(api, { netns: ns.path });
      assert.equal(tablesIn(ns), '', 'the dry run created nothing in the namespace it read');
      const last = script.trimEnd().split('\n').pop()!;
      assert.match(last, /^# dry run: ip: \d+ chains \(\d+ base\), \d+ sets, \d+ maps, \d+ rules, \d+ elements; ip6: .*; \d+ bytes$/);
      const body = script.slice(0, script.indexOf('\n#') + 1);
      assert.equal(Number(/; (\d+) bytes$/.exec(last)![1]), Buffer.byteLength(body), 'bytes: the script above the comments');
      assert.doesNotMatch(script, /\n# note:/);
      assert.equal((script.match(/add element ip kube-proxy affinity-endpoints-600 \{ 10\.96\.0\.12 \. udp \. 53 \. /g) ?? []).length, 2, 'the sticky Service\'s two affinity pairs');
      assert.match(script, /ct reply ip saddr \. ct reply proto-src @affinity-endpoints-600 update @affinity-records /, 'and the rule that records them');
      assert.equal((script.match(/ @affinity meta l4proto tcp update @affinity /g) ?? []).length, 1, 'the IPv6 Service\'s affinity lookup');
      load(ns, script);
      assert.deepEqual(normalizedRuleset(ns), programmed);
      assert.doesNotMatch(ns.nft('list', 'ruleset'), /invalid type/);
      const ip = normalizedRuleset(ns);
      assert.ok(Object.keys(ip).some((k) => k.startsWith('ip6 kube-proxy')), 'the IPv6 table is there too');
      assert.ok(JSON.stringify(ip).includes('fd00:96::20'), 'with the IPv6 Service');
      const listed = ns.nft('list', 'set', 'ip', 'kube-proxy', 'firewall-allow') + ns.nft('list', 'set', 'ip6', 'kube-proxy', 'firewall-allow');
      for (const range of ['203.0.113.41 . tcp . 80 . 192.0.2.0/24', '203.0.113.40 . tcp . 80 . 198.51.100.0/24', '2001:db8::40 . tcp . 80 . fd00:99::/32']) {
        assert.ok(listed.includes(range), `firewall-allow lists ${range}:\n${listed}`);
      }
    });
  });

  it('counts what it adds: the summary agrees with the loaded tables', async () => {
    const script = await dryRun(api);
    const m = /ip: (\d+) chains \((\d+) base\), (\d+) sets, (\d+) maps, (\d+) rules, (\d+) elements;/.exec(script)!;
    const ip = Object.entries(programmed).filter(([k]) => k.startsWith('ip kube-proxy '));
    const chains = ip.filter(([k]) => k.includes(' chain '));
    assert.equal(Number(m[1]), chains.length);
    assert.equal(Number(m[2]), chains.filter(([, v]) => (v as { hook: unknown }).hook !== null).length);
    assert.equal(Number(m[5]), chains.reduce((n, [, v]) => n + (v as { rules: unknown[] }).rules.length, 0));
    assert.equal(Number(m[3]), ip.filter(([k]) => k.includes(' set ')).length);
    assert.equal(Number(m[4]), ip.filter(([k]) => k.includes(' map ')).length);
  });

  it('--diff against the tables the proxy synced: no changes', async () => {
    const before = synced.nft('list', 'ruleset');
    const out = await dryRun(api, { diff: true, netns: synced.path });
    assert.equal(out, '# dry run --diff: no changes\n');
    assert.equal(synced.nft('list', 'ruleset'), before, 'reading the tables changed nothing');
  });

  it('--diff after one element was deleted and a stray one added behind the proxy\'s back: exactly their add and delete', async () => {
    const missing = '10.96.0.10 . tcp . 80';
    assert.match(synced.nft('list', 'set', 'ip', 'kube-proxy', 'cluster-ip-ports'), /10\.96\.0\.10 \. tcp \. 80/);
    synced.exec('nft', ['-f', '-'], [
      `delete element ip kube-proxy cluster-ip-ports { ${missing} }`,
      'add element ip kube-proxy cluster-ips { 10.96.9.9 }',
    ].join('\n') + '\n');
    const out = await dryRun(api, { diff: true, netns: synced.path });
    assert.equal(out, [
      'delete element ip kube-proxy cluster-ips { 10.96.9.9 }',
      `add element ip kube-proxy cluster-ip-ports { ${missing} }`,
      '# dry run --diff: 2 changes (1 add, 1 delete)',
    ].join('\n') + '\n');
    // What it prints is what a sync would do: loaded, the tables are the proxy's again.
    synced.exec('nft', ['-f', '-'], out);
    assert.deepEqual(normalizedRuleset(synced), programmed);
  });

  it('--diff sees a stray chain, a flushed chain and a changed verdict, and its output repairs them', async () => {
    const chain = 'cluster-ip-traffic';
    const [element] = synced.nft('list', 'map', 'ip6', 'kube-proxy', 'service-ips').match(/fd00:96::20 \. tcp \. 80 : goto [^\s,}]+/)!;
    synced.exec('nft', ['-f', '-'], [
      'add chain ip kube-proxy stray',
      'add chain ip6 kube-proxy stray',
      `flush chain ip kube-proxy ${chain}`,
      `delete element ip6 kube-proxy service-ips { ${element} }`,
      'add element ip6 kube-proxy service-ips { fd00:96::20 . tcp . 80 : goto stray }',
    ].join('\n') + '\n');
    const out = await dryRun(api, { diff: true, netns: synced.path });
    const lines = out.trimEnd().split('\n');
    assert.ok(lines.includes(`flush chain ip kube-proxy ${chain}`), out);
    assert.ok(lines.some((l) => l.startsWith(`add rule ip kube-proxy ${chain} `)), out);
    assert.ok(lines.includes('delete element ip6 kube-proxy service-ips { fd00:96::20 . tcp . 80 : goto stray }'), out);
    assert.ok(lines.includes(`add element ip6 kube-proxy service-ips { ${element} }`), out);
    assert.ok(lines.indexOf('delete chain ip6 kube-proxy stray') > lines.indexOf('delete element ip6 kube-proxy service-ips { fd00:96::20 . tcp . 80 : goto stray }'),
      'the stray chain goes once nothing jumps to it');
    assert.ok(lines.includes('delete chain ip kube-proxy stray'), out);
    assert.match(lines.at(-1)!, /^# dry run --diff: \d+ changes \(\d+ add, 3 delete, 1 flush\)$/);
    synced.exec('nft', ['-f', '-'], out);
    assert.deepEqual(normalizedRuleset(synced), programmed);
  });

  it('--diff against a namespace without our tables prints the whole ruleset as additions', async () => {
    await withNetns(async (ns) => {
      const out = await dryRun(api, { diff: true, netns: ns.path });
      assert.equal(tablesIn(ns), '');
      assert.match(out, /^add table ip kube-proxy\n/);
      assert.match(out, /\n# dry run --diff: \d+ changes \(\d+ add, 0 delete\)\n$/);
      load(ns, out);
      assert.deepEqual(normalizedRuleset(ns), programmed);
    });
  });

  it('refuses the ipvs mode, saying it compiles the nftables mode\'s ruleset', async () => {
    const cl = parseCommandLine(['--proxy-mode=ipvs', `--hostname-override=${NODE_NAME}`]);
    assert.deepEqual(cl.errors, []);
    await assert.rejects(runDryRun({ config: cl.config, log: quiet, master: api.url, diff: false, out: { write: () => true } }),
      /^Error: it compiles the nftables mode's ruleset only, and the configured proxy mode is "ipvs" \(run it with --proxy-mode=nftables/);
  });

  it('an API server that does not answer: fails within the time allowed, naming what was not listed', async () => {
    const started = Date.now();
    await assert.rejects(dryRun(api, { master: `http://127.0.0.1:${await freePort()}`, listTimeoutMs: 1500 }),
      /^Error: the API server's lists were not complete within 1\.5 s \(still listing: [a-z, ]*nodes[a-z, ]*\); last error: .*ECONNREFUSED/);
    assert.ok(Date.now() - started < 10_000);
  });
});
