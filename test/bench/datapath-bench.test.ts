// The datapath bench's parts: the cluster layout (exactly D distinct endpoint counts, the timed
// Services on loopback endpoints), upstream's table with session affinity and NodePorts on every
// local address as the kernel takes it and as a connection goes through it, and the report.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AFFINITY_ENDPOINTS, datapathCluster, endpointCount, loopbacks, NODE_IP, TIMED, TIMED_NODE_PORT, upstreamOptions } from '../../bench/datapath/layout';
import { caseFigures, CASES, type DatapathRow } from '../../bench/datapath/measure-pair';
import { datapathTable, differenceTable, extraUs, flatnessTable } from '../../bench/datapath/report';
import { parseArgs } from '../../bench/run';
import { upstreamAffinitySet, upstreamSyncScript } from '../traffic/upstream-nftables';
import { withNetns } from '../helpers/netns';
import { connectRounds } from '../../bench/datapath/connect-loop';
import { medianInterval } from '../../bench/lib/stats';

describe('the datapath bench layout', () => {
  it('gives the Services exactly D distinct endpoint counts, the largest to Service 0 and 1 to Service 1', () => {
    for (const d of [1, 2, 3, 50]) {
      const c = datapathCluster(200, d);
      const counts = new Set(c.cluster.filter((s) => !s.affinity && s.endpoints.length > 0).map((s) => s.endpoints.length));
      assert.equal(counts.size, d, `D = ${d}`);
      assert.equal(Math.max(...counts), d);
      assert.equal(c.cluster[TIMED.last].endpoints.length, d);
      assert.equal(c.cluster[TIMED.first].endpoints.length, 1);
      assert.equal(c.endpoints, c.cluster.reduce((n, s) => n + s.endpoints.length, 0));
    }
    // One in 100 of the others has none (index 50, 150, ...: past the counts' Services and the timed ones).
    const none = datapathCluster(1000, 50).cluster.flatMap((s, i) => (s.endpoints.length === 0 ? [i] : []));
    assert.deepEqual(none, [50, 150, 250, 350, 450, 550, 650, 750, 850, 950]);
    assert.deepEqual(datapathCluster(1000, 200).cluster.flatMap((s, i) => (s.endpoints.length === 0 ? [i] : [])), [250, 350, 450, 550, 650, 750, 850, 950]);
    assert.equal(endpointCount(7, 500), 7);
    assert.equal(endpointCount(600, 500), 1 + (600 % 4));
  });

  it('puts each timed case on loopback endpoints of its own, the NodePort on a Service with D endpoints', () => {
    const c = datapathCluster(1000, 500);
    const eps = c.cluster[TIMED.last].endpoints.map((e) => e.ip);
    assert.equal(new Set(eps).size, 500);
    assert.ok(eps.every((ip) => ip.startsWith('127.1.')));
    assert.equal(eps[255], '127.1.1.0');
    assert.deepEqual(loopbacks(2, 2), ['127.2.0.1', '127.2.0.2']);
    const timed = [c.cluster[TIMED.last], c.cluster[TIMED.first], c.cluster[TIMED.nodePort], c.affinity].flatMap((s) => s.endpoints.map((e) => e.ip));
    assert.equal(new Set(timed).size, 500 + 1 + 500 + AFFINITY_ENDPOINTS, 'no endpoint shared between cases');
    assert.equal(c.cluster[TIMED.nodePort].endpoints.length, 500);
    assert.equal(c.cluster[TIMED.nodePort].nodePort, TIMED_NODE_PORT);
    const nodePorts = c.cluster.filter((s) => s.nodePort).map((s) => s.nodePort);
    assert.equal(new Set(nodePorts).size, nodePorts.length);
    assert.equal(c.affinity.affinity, true);
    assert.equal(c.affinity.nodePort, 0);
    assert.equal(c.affinity.endpoints.length, AFFINITY_ENDPOINTS);
  });

  it('refuses a D the Service count cannot hold', () => {
    assert.throws(() => datapathCluster(10, 10), /at least 11 Services/);
    assert.throws(() => datapathCluster(3, 1), /at least 4 Services/);
    assert.throws(() => datapathCluster(10, 0), /positive integer/);
  });

  it('takes --counts as the D values and the datapath command', () => {
    const o = parseArgs(['datapath', '--sizes', '1000', '--counts', '1,50']);
    assert.equal(o.command, 'datapath');
    assert.deepEqual(o.sizes, [1000]);
    assert.deepEqual(o.distinct, [1, 50]);
    assert.throws(() => parseArgs(['datapath', '--counts', '0']), /positive integers/);
  });
});

describe("upstream's table for the datapath bench", () => {
  it('writes per-endpoint affinity sets, their lookups before the numgen vmap and their updates before the DNAT', () => {
    const c = datapathCluster(12, 3);
    const o = upstreamOptions(c);
    const text = upstreamSyncScript(o);
    const a = o.services.find((s) => s.affinitySeconds !== undefined)!;
    const set = upstreamAffinitySet(a, a.endpoints[0]);
    assert.match(text, new RegExp(`add set ip kube-proxy ${set} \\{ type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; \\}`));
    const lines = text.split('\n');
    const lookup = lines.findIndex((l) => l.endsWith(`ip saddr @${set} goto ${set.replace('affinity-', 'endpoint-')}`));
    const numgen = lines.findIndex((l, i) => i > lookup && l.includes('numgen random mod 4 vmap'));
    assert.ok(lookup > 0 && numgen > lookup, 'the record lookups come before the random pick');
    assert.ok(lines.includes(`add rule ip kube-proxy ${set.replace('affinity-', 'endpoint-')} update @${set} { ip saddr }`));
    assert.ok(lines.includes('add rule ip kube-proxy services fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports'));
    assert.ok(lines.includes('add rule ip kube-proxy nodeport-endpoints-check ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @no-endpoint-nodeports'));
  });

  it('rejects a Service without endpoints through its no-endpoint maps, with no chain of its own', () => {
    const c = datapathCluster(200, 3);
    const o = upstreamOptions(c);
    const none = o.services.filter((s) => s.endpoints.length === 0);
    assert.equal(none.length, 2);
    const text = upstreamSyncScript(o);
    for (const s of none) {
      assert.ok(text.includes(`add element ip kube-proxy no-endpoint-services { ${s.clusterIP} . tcp . ${s.port} : goto reject-chain }`));
      if (s.nodePort) assert.ok(text.includes(`add element ip kube-proxy no-endpoint-nodeports { tcp . ${s.nodePort} : goto reject-chain }`));
    }
  });

  it('loads into the kernel, DNATs a NodePort on a local address, and records the affinity client', async () => {
    await withNetns(async (ns) => {
      const c = datapathCluster(12, 3);
      ns.exec('nft', ['-f', '-'], upstreamSyncScript(upstreamOptions(c)));
      ns.exec('ip', ['route', 'add', '10.96.0.0/12', 'dev', 'lo']);
      ns.exec('ip', ['addr', 'add', `${NODE_IP}/32`, 'dev', 'lo']);
      // A server on 8080 only: a connection to the ClusterIP or the NodePort succeeds only through a DNAT.
      const client = `const net=require('net');const s=net.createServer((c)=>c.destroy()).listen(8080,'0.0.0.0',async()=>{
        for(const [h,p] of JSON.parse(process.argv[1]))await new Promise((ok,ko)=>{const c=net.connect(p,h,()=>{c.destroy();ok();});c.on('error',ko);});
        s.close();});`;
      const targets = [[c.cluster[TIMED.last].clusterIP, 80], [NODE_IP, TIMED_NODE_PORT], [c.affinity.clusterIP, 80]];
      ns.exec(process.execPath, ['-e', client, JSON.stringify(targets)]);
      const o = upstreamOptions(c);
      const a = o.services.find((s) => s.affinitySeconds !== undefined)!;
      const records = a.endpoints.map((ip) => ns.nft('list', 'set', 'ip', 'kube-proxy', upstreamAffinitySet(a, ip)))
        .filter((text) => /elements = \{ 192\.0\.2\.1 /.test(text));
      // The client's address: the namespace's one global address (127.0.0.1 is host scope, the route's is link).
      assert.equal(records.length, 1, 'exactly one endpoint remembers the client');
    });
  });
});

describe('the datapath client (connect-loop.c)', () => {
  it('times every target in every round, at either scheduling, and fails on a refused connection', async () => {
    await withNetns(async (ns) => {
      for (const [i, scheduling] of (['normal', 'realtime'] as const).entries()) {
        const a = { ns, host: '127.0.0.1', port: 19001 + 10 * i, listenPort: 19001 + 10 * i };
        const b = { ns, host: '127.0.0.1', port: 19002 + 10 * i, listenPort: 19002 + 10 * i };
        const rounds = connectRounds([a, b], { rounds: 3, perRound: 20, scheduling });
        assert.equal(rounds.length, 3);
        for (const r of rounds) {
          assert.equal(r.length, 2);
          assert.ok(r.every((us) => us > 0 && us < 100_000), `${scheduling}: ${r}`);
        }
      }
      // Nothing listens where it connects: refused connections must not pass for fast ones.
      const refused = { ns, host: '127.0.0.1', port: 19100, listenPort: 19101 };
      assert.throws(() => connectRounds([refused], { rounds: 1, perRound: 5, scheduling: 'normal' }), /connect \(.*:127\.0\.0\.1:19100:19101\): Connection refused/);
    });
  });
});

describe('the paired statistics', () => {
  it("bounds the median by order statistics: ranks 14 and 27 of 40 at 95%, none below 6 values", () => {
    const forty = Array.from({ length: 40 }, (_, i) => 40 - i); // 40..1: the interval must not depend on the order given
    assert.deepEqual(medianInterval(forty), [14, 27]);
    assert.deepEqual(medianInterval([3, 1, 2, 5, 4, 6]), [1, 6]);
    assert.deepEqual(medianInterval([1, 2, 3, 4, 5]), [-Infinity, Infinity]);
  });

  it('takes each round as a pair: a load that moves both namespaces alike leaves the difference', () => {
    // Round r: the machine adds 10r µs to every namespace; ours is always 1 µs below upstream's.
    const rounds = Array.from({ length: 12 }, (_, r) => [10 + 10 * r, 15 + 10 * r, 16 + 10 * r]);
    const f = caseFigures(rounds);
    assert.equal(f.diff, -1);
    assert.deepEqual([f.diffLow, f.diffHigh], [-1, -1]);
    assert.equal(f.oursExtra, 5);
    assert.equal(f.upstreamExtra, 6);
    assert.equal(f.bare, 65);
    assert.equal(f.flat, undefined, 'no ours at D = 1 in the rounds');
  });

  it('pairs each ruleset at D with itself at D = 1 when the rounds carry them', () => {
    const rounds = Array.from({ length: 12 }, (_, r) => [10 + r, 16 + r, 16 + r, 15.5 + r, 14 + r]);
    const f = caseFigures(rounds);
    assert.deepEqual(f.flat, { ours: { diff: 0.5, low: 0.5, high: 0.5, atOneExtra: 5.5 }, upstream: { diff: 2, low: 2, high: 2, atOneExtra: 4 } });
  });
});

describe('the datapath report', () => {
  it('prints both rulesets side by side, above the no-ruleset connection, and their paired difference', () => {
    const fig = (bare: number, ours: number, upstream: number) => caseFigures(Array.from({ length: 6 }, () => [bare, ours, upstream]));
    const cases = Object.fromEntries(CASES.map((k) => [k, fig(100, 120, 140)])) as DatapathRow['cases'];
    const row: DatapathRow = {
      services: 1000, distinct: 50, endpoints: 2500, oursSyncS: 0.5, upstreamLoadS: 3,
      cases: { ...cases, last: fig(100, 130, 140) },
    };
    assert.equal(extraUs(row, 'ours', 'last'), 30);
    const cells = (table: string) => table.split('\n')[2].split('|').slice(1, -1).map((c) => c.trim());
    assert.deepEqual(cells(datapathTable([row])), ['1,000', '50', '2,500', '100.0-100.0', '+20.0 / +40.0', '+30.0 / +40.0', '+20.0 / +40.0', '+20.0 / +40.0', '+20.0 / +40.0', '0.50', '3.0']);
    assert.deepEqual(cells(differenceTable([row])), ['1,000', '50', '-20.0 (-20.0 .. -20.0)', '-10.0 (-10.0 .. -10.0)', '-20.0 (-20.0 .. -20.0)', '-20.0 (-20.0 .. -20.0)', '-20.0 (-20.0 .. -20.0)']);
    assert.deepEqual(cells(flatnessTable([row])), ['1,000', '50', '-', '-', '-', '-', '-'], 'no ours at D = 1 measured');
    const withOne = { ...row, cases: { ...row.cases, last: caseFigures(Array.from({ length: 6 }, () => [100, 130, 140, 120, 140])) } };
    assert.equal(cells(flatnessTable([withOne]))[3], '+10.0 (+10.0 .. +10.0) +50% / +0.0 (+0.0 .. +0.0) +0%');
  });
});

describe('the datapath results file', () => {
  it('puts each array of numbers on one line and reads back the same', async () => {
    const { compactJson } = await import('../../bench/datapath/run-datapath');
    const v = { rows: [{ rounds: [[10.5, 16.25, -0.5], [1e-7, 2, 3]], name: 'x', list: ['a', 'b'] }] };
    const text = compactJson(v);
    assert.deepEqual(JSON.parse(text), v);
    assert.match(text, /\[10\.5, 16\.25, -0\.5\]/);
    assert.match(text, /\[1e-7, 2, 3\]/);
    assert.match(text, /"list": \[\n\s+"a",/, 'strings keep their lines');
  });
});
