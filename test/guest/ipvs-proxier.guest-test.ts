// The IPVS proxier against the real kernel (IPVS, kube-ipvs0, the helper table) in a fresh namespace:
// what full and partial syncs leave there, read back through our dump and through ipvsadm and ip;
// a kernel refusal mapped to its operation and retried; adoption by a new proxier (a restart) that
// sends nothing when the kernel is already right.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { IpvsSocket, Nft, RtnlSocket } from '../../src/native';
import type { IpvsApplyResult, IpvsHandle, IpvsOp } from '../../src/native/ipvs/ipvs-types';
import { IpvsHelperTable, IpvsProxier } from '../../src/proxier/ipvs';
import { changed, ep, recordingLog, snapshot, sp } from '../proxier/ipvs/helpers';
import { withNetns, type TestNetns } from '../helpers/netns';

/** Counts what the proxier sends, passing everything to the real socket. */
class CountingIpvs implements IpvsHandle {
  ops: IpvsOp[] = [];
  constructor(private readonly real: IpvsSocket) {}
  apply(ops: readonly IpvsOp[]): Promise<IpvsApplyResult> { this.ops.push(...ops); return this.real.apply(ops); }
  dump() { return this.real.dump(); }
  dumpDestinations(k: Parameters<IpvsHandle['dumpDestinations']>[0]) { return this.real.dumpDestinations(k); }
  getTimeouts() { return this.real.getTimeouts(); }
  setTimeouts(t: Parameters<IpvsHandle['setTimeouts']>[0]) { return this.real.setTimeouts(t); }
  close(): void { this.real.close(); }
}

async function openProxier(ns: TestNetns) {
  const real = await IpvsSocket.open({ netns: ns.path });
  const ipvs = new CountingIpvs(real);
  const rtnl = new RtnlSocket({ netns: ns.path });
  const nft = Nft.open({ netns: ns.path });
  const log = recordingLog();
  const failures = { n: 0 };
  const proxier = new IpvsProxier({
    ipvs, rtnl, helperTable: new IpvsHelperTable({ nft, families: ['ip'] }), families: ['IPv4'], scheduler: '',
    excludeCIDRs: [], nodePortAddresses: [], log, clock: { now: () => Date.now() }, metrics: { syncFailures: { inc: () => { failures.n++; } } },
  });
  return { ipvs, log, failures, proxier, close: () => { ipvs.close(); rtnl.close(); nft.close(); } };
}

function node(ns: TestNetns): void {
  ns.exec('ip', ['link', 'add', 'eth0', 'type', 'dummy']);
  ns.exec('ip', ['addr', 'add', '10.0.0.1/24', 'dev', 'eth0']);
  ns.exec('ip', ['link', 'set', 'eth0', 'up']);
}

const web = sp('web', { clusterIP: '10.96.0.10', nodePort: 30080 });
const dns = sp('dns', { clusterIP: '10.96.0.53', port: 53, protocol: 'UDP', affinityTimeoutSeconds: 600 });
const pods = [ep('10.244.0.2'), ep('10.244.0.3')];

test('full and partial syncs on the kernel, read back through ipvsadm, ip and nft', async () => {
  await withNetns(async (ns) => {
    node(ns);
    const p = await openProxier(ns);
    try {
      const full = await p.proxier.sync(snapshot([[web, pods], [dns, pods.slice(0, 1)]]), changed([]), true);
      assert.equal(full.ok, true, String(full.error));
      const table = ns.exec('ipvsadm', ['-Ln']);
      assert.match(table, /TCP\s+10\.96\.0\.10:80 rr\n\s+-> 10\.244\.0\.2:8080\s+Masq\s+1.*\n\s+-> 10\.244\.0\.3:8080\s+Masq\s+1/);
      assert.match(table, /TCP\s+10\.0\.0\.1:30080 rr/);
      assert.match(table, /UDP\s+10\.96\.0\.53:53 rr persistent 600/);
      const vips = ns.exec('ip', ['-o', 'addr', 'show', 'dev', 'kube-ipvs0']);
      assert.match(vips, /10\.96\.0\.10\/32/);
      assert.match(vips, /10\.96\.0\.53\/32/);
      assert.doesNotMatch(vips, /10\.0\.0\.1/);
      assert.match(ns.nft('list', 'table', 'ip', 'kube-proxy-ipvs'), /10\.96\.0\.10 \. tcp \. 80/);

      // One endpoint replaced: one TCP real server drains at weight 0, UDP's goes at once.
      p.ipvs.ops = [];
      const next = snapshot([[web, [pods[0], ep('10.244.0.4')]], [dns, [ep('10.244.0.4')]]]);
      const partial = await p.proxier.sync(next, changed([web.key, dns.key]), false);
      assert.equal(partial.ok, true, String(partial.error));
      assert.ok(p.ipvs.ops.length <= 8, JSON.stringify(p.ipvs.ops));
      const after = await p.ipvs.dump();
      const webVs = after.find((s) => s.address === '10.96.0.10')!;
      assert.deepEqual(webVs.destinations.map((d) => `${d.address}:${d.weight}`).sort(), ['10.244.0.2:1', '10.244.0.3:0', '10.244.0.4:1']);
      const dnsVs = after.find((s) => s.address === '10.96.0.53')!;
      assert.deepEqual(dnsVs.destinations.map((d) => d.address), ['10.244.0.4']);

      // The Service is removed: its virtual services, its address and its elements go.
      const gone = await p.proxier.sync(snapshot([[web, [pods[0], ep('10.244.0.4')]]]), changed([], [dns]), false);
      assert.equal(gone.ok, true);
      assert.doesNotMatch(ns.exec('ipvsadm', ['-Ln']), /10\.96\.0\.53/);
      assert.doesNotMatch(ns.exec('ip', ['-o', 'addr', 'show', 'dev', 'kube-ipvs0']), /10\.96\.0\.53/);
    } finally {
      p.close();
    }
  }, 'kpgprox');
});

test('a refusal by the kernel is logged naming its operation and counted, the rest is applied, and the next sync mends it', async () => {
  await withNetns(async (ns) => {
    node(ns);
    // IPVS refuses a real server whose address is not unicast (EINVAL): a real refusal, not an injected one.
    const p = await openProxier(ns);
    try {
      const r = await p.proxier.sync(snapshot([[web, [pods[0], ep('224.0.0.5')]]]), changed([]), true);
      assert.equal(r.ok, true, 'one refused operation leaves the sync done (the node stays healthy)');
      assert.equal(p.failures.n, 1);
      assert.match(p.log.lines.map((l) => l.msg).join('\n'), /addDest TCP 10\.96\.0\.10:80 -> 224\.0\.0\.5:8080: EINVAL/);
      assert.match(ns.exec('ipvsadm', ['-Ln']), /-> 10\.244\.0\.2:8080\s+Masq\s+1/, 'the other operations were applied');
      const again = await p.proxier.sync(snapshot([[web, pods]]), changed([web.key]), false);
      assert.equal(again.ok, true, String(again.error));
      const table = ns.exec('ipvsadm', ['-Ln']);
      assert.match(table, /-> 10\.244\.0\.3:8080\s+Masq\s+1/);
      assert.doesNotMatch(table, /224\.0\.0\.5/);
    } finally {
      p.close();
    }
  }, 'kpgprox');
});

test('a new proxier adopts what the last one left and sends nothing when it is right', async () => {
  await withNetns(async (ns) => {
    node(ns);
    const state = snapshot([[web, pods], [dns, pods]]);
    const first = await openProxier(ns);
    assert.equal((await first.proxier.sync(state, changed([]), true)).ok, true);
    first.close();
    const before = ns.exec('ipvsadm', ['-Ln']);
    const second = await openProxier(ns);
    try {
      assert.equal((await second.proxier.sync(state, changed([]), true)).ok, true);
      assert.deepEqual(second.ipvs.ops, [], 'an adopted, correct kernel gets no IPVS operation');
      assert.equal(ns.exec('ipvsadm', ['-Ln']), before);
    } finally {
      second.close();
    }
  }, 'kpgprox');
});
