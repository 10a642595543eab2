// The IPVS bench's pure parts (the kernel side runs only in the guest, `npm run bench -- ipvs`): the
// snapshot and its one-endpoint change, the peer's ipvsadm and ip texts, the handle timing, the
// report's quantiles and tables.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { benchCluster, replaceOnePod } from '../../bench/ipvs/snapshot';
import { addressBatch, changeText, restoreText } from '../../bench/ipvs/peer';
import { TimeBuckets, timed } from '../../bench/ipvs/timed';
import { flatnessLine, mainTable, quantile, resultPage, type IpvsBenchRun } from '../../bench/ipvs/report';
import { partialIndex } from '../../bench/ipvs/ours';
import type { SizeResult } from '../../bench/ipvs/size';

describe('the IPVS bench', () => {
  it('builds the synthetic cluster as a snapshot and replaces one pod of one Service', () => {
    const c = benchCluster(20);
    assert.equal(c.services.size, 20);
    const key = [...c.services.keys()][3];
    const before = c.endpoints.get(key)!.cluster.map((e) => e.ip);
    assert.equal(before.length, 4);
    const { swap, changes } = replaceOnePod(c, 3, 1);
    const after = c.endpoints.get(key)!.cluster.map((e) => e.ip);
    assert.deepEqual(after.slice(1), before.slice(1));
    assert.equal(swap.oldIp, before[0]);
    assert.equal(swap.newIp, after[0]);
    assert.notEqual(after[0], before[0]);
    assert.deepEqual([...changes.services], [key]);
    assert.deepEqual(changes.removedEndpoints.get(key)!.map((e) => e.ip), [before[0]]);
    assert.equal(c.snapshot.endpoints.get(key)!.cluster[0].ip, after[0], 'the snapshot sees the change');
  });

  it('writes ipvsadm --restore lines for every virtual service (ClusterIP, NodePort on the node IP) and real server', () => {
    const c = benchCluster(11);
    const lines = restoreText(c.synth).trim().split('\n');
    // 11 Services, NodePorts on Services 0 and 10: 13 virtual services x (1 + 4) lines.
    assert.equal(lines.length, 13 * 5);
    assert.equal(lines[0], '-A -t 10.96.0.1:80 -s rr');
    assert.equal(lines[1], `-a -t 10.96.0.1:80 -r ${c.synth[0].endpoints[0].ip}:8080 -m -w 1`);
    assert.equal(lines[5], '-A -t 10.0.0.1:30000 -s rr');
    const addr = addressBatch(c.synth).trim().split('\n');
    assert.equal(addr[0], 'link add kube-ipvs0 type dummy');
    assert.equal(addr.length, 12);
    assert.equal(addr[1], 'address add 10.96.0.1/32 dev kube-ipvs0');
  });

  it('writes a change as the proxier makes it: old server to weight 0, new one added, the previous drained one deleted', () => {
    const c = benchCluster(30);
    const first = replaceOnePod(c, partialIndex(0, 30), 1).swap;
    const second = replaceOnePod(c, 10, 2).swap; // Service 10 has a NodePort: two virtual services
    assert.equal(changeText(first, undefined), `-e -t ${first.service.clusterIP}:80 -r ${first.oldIp}:8080 -m -w 0\n`
      + `-a -t ${first.service.clusterIP}:80 -r ${first.newIp}:8080 -m -w 1\n`);
    const text = changeText(second, first).trim().split('\n');
    assert.deepEqual(text, [
      `-d -t ${first.service.clusterIP}:80 -r ${first.oldIp}:8080`,
      `-e -t 10.96.0.11:80 -r ${second.oldIp}:8080 -m -w 0`, `-a -t 10.96.0.11:80 -r ${second.newIp}:8080 -m -w 1`,
      `-e -t 10.0.0.1:30001 -r ${second.oldIp}:8080 -m -w 0`, `-a -t 10.0.0.1:30001 -r ${second.newIp}:8080 -m -w 1`,
    ]);
  });

  it('picks a different Service for each partial sync', () => {
    const picks = Array.from({ length: 20 }, (_, k) => partialIndex(k, 1000));
    assert.equal(new Set(picks).size, 20);
    assert.ok(picks.every((i) => i >= 0 && i < 1000));
  });

  it('charges each handle call to its bucket, resolved or rejected', async () => {
    const buckets = new TimeBuckets();
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const h = timed({ async ok() { await wait(20); return 7; }, async bad() { await wait(20); throw new Error('no'); }, sync: () => 3 }, 'x', buckets);
    assert.equal(await h.ok(), 7);
    await assert.rejects(h.bad(), /no/);
    assert.equal(h.sync(), 3);
    const t = buckets.take();
    assert.ok(t.x >= 38, `two 20 ms calls charged ${t.x} ms`);
    assert.deepEqual(buckets.take(), {}, 'take starts again from zero');
  });

  it('reports quantiles, the main table and the flatness of the partial sync', () => {
    assert.equal(quantile([5, 1, 4, 2, 3], 0.5), 3);
    assert.equal(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 9);
    const sync = (wallMs: number) => ({ wallMs, cpuMs: wallMs, parts: { helper: wallMs / 4, ipvs: wallMs / 4, rtnl: wallMs / 4 } });
    const size = (n: number, partialMs: number): SizeResult => ({
      services: n, virtualServices: n * 1.1, realServers: n * 4.4, verified: n === 1000,
      ours: { cold: sync(1000), partial: [sync(partialMs), sync(partialMs * 3)], fullUnchanged: sync(500), problems: [] },
      peer: { restore: { wallMs: 900 }, addresses: { wallMs: 300 }, partial: [{ wallMs: 50 }], floor: [{ wallMs: 40 }] },
    });
    const run: IpvsBenchRun = { date: 'd', guestKernel: '6.1', guestCpus: 2, node: 'v20', repeats: 2,
      calibration: { hostMs: 100, guestMs: 1500 }, sizes: [size(1000, 10), size(10000, 12)] };
    const table = mainTable(run).split('\n');
    assert.match(table[2], /^\| 1,000 +\| 1100 \/ 4400 +\| 1000 +\| 750 +\| 500 +\| 900 +\| 1200 +\| 10\.0 +\| 30\.0 +\| 50\.0 +\| 50\.0 +\| 40\.0 +\|$/);
    assert.match(flatnessLine(run), /10\.0 ms at N = 1000 and 12\.0 ms at N = 10000 \(1\.20x for 10x the Services\)/);
    assert.match(resultPage(run), /the guest is 15\.0x slower/);
  });
});
