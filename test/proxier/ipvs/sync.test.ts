// IpvsProxier on the fake kernel: full and partial syncs read back, partial cost, shared VIPs,
// refusals and rejections, the helper table call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundAddresses, changed, ep, ipvsText, opsSince, setup, snapshot, sp } from './helpers';

describe('IpvsProxier syncs', () => {
  it('a full sync programs every virtual service and binds the VIPs; a partial one applies the changes', async () => {
    const s = setup();
    const a = sp('a', { nodePort: 30080 });
    const b = sp('b', { clusterIP: '10.96.0.20', loadBalancerIPs: ['198.51.100.7'] });
    const v6 = sp('c', { family: 'IPv6', protocol: 'UDP', port: 53 });
    let r = await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]], [b, [ep('10.1.0.7', 9090)]], [v6, [ep('fd00:1::5', 53)]]]), changed([]), true);
    assert.deepEqual(r, { full: true, ok: true });
    assert.deepEqual(await ipvsText(s.ipvs), [
      'TCP 10.0.0.1:30080 rr -> 10.1.0.5:8080 w1',
      'TCP 10.0.0.2:30080 rr -> 10.1.0.5:8080 w1',
      'TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w1',
      'TCP 10.96.0.20:80 rr -> 10.1.0.7:9090 w1',
      'TCP 198.51.100.7:80 rr -> 10.1.0.7:9090 w1',
      'UDP [fd00:96::10]:53 rr -> [fd00:1::5]:53 w1',
    ]);
    assert.deepEqual(await boundAddresses(s.rtnl), ['10.96.0.10', '10.96.0.20', '198.51.100.7', 'fd00:96::10']);
    const call = s.helper.calls[0];
    assert.deepEqual([call.full, [...call.nodePortIPs], call.changed.size], [true, ['10.0.0.1', '10.0.0.2', 'fd00::1'], 3]);
    assert.equal((await s.rtnl.link('kube-ipvs0'))?.up, false);

    r = await s.proxier.sync(snapshot([[a, [ep('10.1.0.5'), ep('10.1.0.6')]], [v6, [ep('fd00:1::5', 53)]]]), changed([a.key, b.key], [b]), false);
    assert.deepEqual(r, { full: false, ok: true });
    assert.deepEqual(await ipvsText(s.ipvs), [
      'TCP 10.0.0.1:30080 rr -> 10.1.0.5:8080 w1 10.1.0.6:8080 w1',
      'TCP 10.0.0.2:30080 rr -> 10.1.0.5:8080 w1 10.1.0.6:8080 w1',
      'TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w1 10.1.0.6:8080 w1',
      'UDP [fd00:96::10]:53 rr -> [fd00:1::5]:53 w1',
    ]);
    assert.deepEqual(await boundAddresses(s.rtnl), ['10.96.0.10', 'fd00:96::10']);
    const last = s.helper.calls[1];
    assert.deepEqual([last.full, [...last.changed].sort(), [...last.removed.keys()]], [false, [a.key, b.key].sort(), [b.key]]);
  });

  it('a partial sync costs what changed: ops for the changed ServicePort only, no dump, no address read', async () => {
    const s = setup();
    const sps = Array.from({ length: 50 }, (_, i) => sp(`s${i}`, { clusterIP: `10.96.1.${i + 1}`, nodePort: 30000 + i }));
    const entries = sps.map((x, i) => [x, [ep(`10.1.1.${i + 1}`)]] as [typeof x, ReturnType<typeof ep>[]]);
    await s.proxier.sync(snapshot(entries), changed([]), true);
    const before = { batches: s.ipvs.batches.length, addrBatches: s.rtnl.batches.length, dump: s.ipvs.calls.dump, addresses: s.rtnl.calls.addresses };
    entries[7] = [sps[7], [ep('10.1.1.8'), ep('10.1.2.8')]];
    const r = await s.proxier.sync(snapshot(entries), changed([sps[7].key]), false);
    assert.equal(r.ok, true);
    assert.deepEqual(opsSince(s.ipvs, before.batches), [
      'addDest TCP 10.96.1.8:80 -> 10.1.2.8:8080 w1', 'addDest TCP 10.0.0.1:30007 -> 10.1.2.8:8080 w1', 'addDest TCP 10.0.0.2:30007 -> 10.1.2.8:8080 w1',
    ]);
    assert.equal(s.ipvs.batches.length, before.batches + 1, 'one apply');
    assert.equal(s.rtnl.batches.length, before.addrBatches, 'no address op');
    assert.deepEqual([s.ipvs.calls.dump, s.ipvs.calls.dumpDestinations, s.rtnl.calls.addresses], [before.dump, 0, before.addresses]);
  });

  it('a VIP shared by two ServicePorts stays bound while either wants it', async () => {
    const s = setup();
    const a = sp('a', { port: 80 });
    const b = sp('b', { port: 443 });
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]], [b, [ep('10.1.0.5', 8443)]]]), changed([]), true);
    await s.proxier.sync(snapshot([[b, [ep('10.1.0.5', 8443)]]]), changed([a.key], [a]), false);
    assert.deepEqual(await boundAddresses(s.rtnl), ['10.96.0.10']);
    assert.deepEqual(await ipvsText(s.ipvs), ['TCP 10.96.0.10:443 rr -> 10.1.0.5:8443 w1']);
    await s.proxier.sync(snapshot([]), changed([b.key], [b]), false);
    assert.deepEqual([await boundAddresses(s.rtnl), await ipvsText(s.ipvs)], [[], []]);
  });

  it('a refused op is logged with its message, counted, the rest applied and the sync done, and its virtual service retried on the next sync', async () => {
    const s = setup();
    const a = sp('a');
    s.ipvs.inject({ errno: 'ENOMEM', at: /addDest .*10\.1\.0\.6/ });
    const snap = snapshot([[a, [ep('10.1.0.5'), ep('10.1.0.6')]]]);
    const r = await s.proxier.sync(snap, changed([]), true);
    assert.equal(r.ok, true, 'one refused operation does not fail the sync (the node stays healthy)');
    assert.equal(s.failures.n, 1);
    assert.ok(s.log.lines.some((l) => l.level === 'warn' && l.msg.includes('addDest TCP 10.96.0.10:80 -> 10.1.0.6:8080: ENOMEM')));
    assert.deepEqual(await ipvsText(s.ipvs), ['TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w1']);
    const from = s.ipvs.batches.length;
    assert.deepEqual(await s.proxier.sync(snap, changed([]), false), { full: false, ok: true });
    assert.deepEqual(opsSince(s.ipvs, from), ['addDest TCP 10.96.0.10:80 -> 10.1.0.6:8080 w1']);
    assert.equal(s.failures.n, 1);
  });

  it('drift errnos correct the mirror: a service someone else added is edited, not added again', async () => {
    const s = setup({}, (ipvs) => {
      void ipvs.apply([{ op: 'addService', service: { family: 4, protocol: 'TCP', address: '192.0.2.9', port: 80, scheduler: 'wlc', flags: 0, timeout: 0, prefixLength: 32 } },
        { op: 'addDest', service: { family: 4, protocol: 'TCP', address: '192.0.2.9', port: 80 }, dest: { address: '10.9.9.9', port: 80, family: 4, weight: 3, forward: 'masq' } }]);
    });
    const a = sp('a', { externalIPs: ['192.0.2.9'] });
    const snap = snapshot([[a, [ep('10.1.0.5')]]]);
    await s.proxier.sync(snap, changed([]), true);
    assert.ok(s.log.lines.some((l) => /addService TCP 192\.0\.2\.9:80: EEXIST/.test(l.msg)), 'addService: EEXIST (not adopted: not bound, not a node IP)');
    assert.equal(s.failures.n, 1);
    assert.equal((await s.proxier.sync(snap, changed([]), false)).ok, true);
    assert.equal(s.failures.n, 1);
    // Scheduler edited; the real server it did not want drains (weight 0) instead of going at once.
    assert.deepEqual((await ipvsText(s.ipvs)).filter((l) => l.includes('192.0.2.9')), ['TCP 192.0.2.9:80 rr -> 10.1.0.5:8080 w1 10.9.9.9:80 w0']);
  });

  it('a batch that cannot be sent leaves the mirror as it was; the next sync is full and converges', async () => {
    const s = setup();
    const a = sp('a');
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), true);
    s.ipvs.rejectNextApply('ENOBUFS');
    const snap = snapshot([[a, [ep('10.1.0.6')]]]);
    const r = await s.proxier.sync(snap, changed([a.key]), false);
    assert.equal(r.ok, false);
    assert.equal((r.error as Error & { code?: string }).code, 'ENOBUFS');
    const again = await s.proxier.sync(snap, changed([]), false);
    assert.deepEqual(again, { full: true, ok: true });
    assert.deepEqual(await ipvsText(s.ipvs), ['TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w0 10.1.0.6:8080 w1']);
  });

  it('a helper table failure fails the sync and makes the next one full', async () => {
    const s = setup();
    const a = sp('a');
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), true);
    s.helper.failNext = true;
    assert.equal((await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([a.key]), false)).ok, false);
    const r = await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), false);
    assert.deepEqual([r.full, s.helper.calls.at(-1)?.full], [true, true]);
  });

  it('a refused address bind is retried', async () => {
    const s = setup();
    s.rtnl.inject({ errno: 'ENOMEM', at: 0 });
    const snap = snapshot([[sp('a'), [ep('10.1.0.5')]]]);
    await s.proxier.sync(snap, changed([]), true);
    assert.equal(s.failures.n, 1);
    assert.deepEqual(await boundAddresses(s.rtnl), []);
    assert.equal((await s.proxier.sync(snap, changed([]), false)).ok, true);
    assert.deepEqual(await boundAddresses(s.rtnl), ['10.96.0.10']);
  });
});

describe('IpvsProxier deletes', () => {
  it('deleting what someone else already removed is not a failure', async () => {
    const s = setup();
    const a = sp('a', { protocol: 'UDP', port: 53 });
    const b = sp('b', { clusterIP: '10.96.0.20' });
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5', 53), ep('10.1.0.6', 53)]], [b, [ep('10.1.0.7')]]]), changed([]), true);
    await s.ipvs.apply([
      { op: 'deleteDest', service: { family: 4, protocol: 'UDP', address: '10.96.0.10', port: 53 }, dest: { address: '10.1.0.6', port: 53 } },
      { op: 'deleteService', service: { family: 4, protocol: 'TCP', address: '10.96.0.20', port: 80 } },
    ]);
    const link = await s.rtnl.link('kube-ipvs0');
    await s.rtnl.applyAddresses([{ op: 'delete', address: { linkIndex: link!.index, family: 4, address: '10.96.0.20', prefixLength: 32 } }]);
    const r = await s.proxier.sync(snapshot([[a, [ep('10.1.0.5', 53)]]]), changed([a.key, b.key], [b]), false);
    assert.deepEqual([r, s.failures.n], [{ full: false, ok: true }, 0]);
    assert.deepEqual(await ipvsText(s.ipvs), ['UDP 10.96.0.10:53 rr -> 10.1.0.5:53 w1']);
  });
});

describe('IpvsProxier and excludeCIDRs', () => {
  it('a node IP in excludeCIDRs serves no NodePort, said once; Service addresses in them are left out and logged once per change', async () => {
    const s = setup({ excludeCIDRs: ['10.0.0.2/32', '192.0.2.0/24'] });
    const a = sp('a', { nodePort: 30080, externalIPs: ['192.0.2.1'] });
    const b = sp('b', { clusterIP: '10.96.0.20', nodePort: 30081 });
    const snap = snapshot([[a, [ep('10.1.0.5')]], [b, [ep('10.1.0.6')]]]);
    await s.proxier.sync(snap, changed([]), true);
    await s.proxier.sync(snap, changed([]), true);
    await s.proxier.sync(snap, changed([a.key]), false);
    assert.deepEqual((await ipvsText(s.ipvs)).map((l) => l.split(' ')[1]), ['10.0.0.1:30080', '10.0.0.1:30081', '10.96.0.10:80', '10.96.0.20:80']);
    assert.deepEqual(s.helper.calls[0].nodePortIPs, ['10.0.0.1', 'fd00::1']);
    const warns = s.log.lines.filter((l) => l.level === 'warn').map((l) => l.msg);
    assert.deepEqual(warns.map((m) => m.slice(0, 24)), ['Node IPs in excludeCIDRs', 'Addresses in excludeCIDR']);
  });
});

/** A Map that counts reads: a partial sync must read only the changed keys and never walk it. */
class CountingMap<K, V> extends Map<K, V> {
  gets = 0;
  walks = 0;
  override get(k: K): V | undefined { this.gets++; return super.get(k); }
  override keys(): MapIterator<K> { this.walks++; return super.keys(); }
  override values(): MapIterator<V> { this.walks++; return super.values(); }
  override entries(): MapIterator<[K, V]> { this.walks++; return super.entries(); }
  override forEach(...a: Parameters<Map<K, V>['forEach']>): void { this.walks++; super.forEach(...a); }
}

describe('IpvsProxier partial sync cost', () => {
  it('reads only the changed ServicePorts of the snapshot, never walks it', async () => {
    const s = setup();
    const entries = Array.from({ length: 2000 }, (_, i) => [sp(`s${i}`, { clusterIP: `10.96.${i >> 8}.${i & 255}` }), [ep(`10.1.${i >> 8}.${i & 255}`)]] as [ReturnType<typeof sp>, ReturnType<typeof ep>[]]);
    await s.proxier.sync(snapshot(entries), changed([]), true);
    const snap = snapshot(entries);
    const services = new CountingMap(snap.services);
    const endpoints = new CountingMap(snap.endpoints);
    const key = entries[1234][0].key;
    endpoints.set(key, { cluster: [ep('10.1.99.1')], local: [], allReachable: [ep('10.1.99.1')], hasAny: true });
    services.gets = services.walks = endpoints.gets = endpoints.walks = 0;
    const r = await s.proxier.sync({ ...snap, services, endpoints }, changed([key]), false);
    assert.equal(r.ok, true);
    assert.deepEqual([services.walks, endpoints.walks, services.gets, endpoints.gets], [0, 0, 1, 1]);
    assert.equal(s.ipvs.batches.at(-1)?.length, 2, 'addDest and the old one drained');
  });
});

describe('IpvsProxier refusal logs', () => {
  it('logs the first ten refusals of a sync one by one, then one summary', async () => {
    const s = setup();
    for (let i = 0; i < 30; i++) s.ipvs.inject({ errno: 'ENOENT', at: /addService/ });
    const entries = Array.from({ length: 30 }, (_, i) => [sp(`s${i}`, { clusterIP: `10.96.2.${i + 1}` }), []] as [ReturnType<typeof sp>, []]);
    const r = await s.proxier.sync(snapshot(entries), changed([]), true);
    assert.equal(r.ok, true);
    assert.equal(s.failures.n, 1);
    const warns = s.log.lines.filter((l) => l.level === 'warn');
    assert.equal(warns.filter((l) => l.msg.startsWith('IPVS refused addService')).length, 10);
    assert.deepEqual(warns.at(-1)?.obj, { refused: 30, logged: 10 });
  });
});

describe('IpvsProxier virtual services wanted twice', () => {
  it('the first ServicePort by key gets it, said once; when it goes, the other takes over', async () => {
    const s = setup();
    const a = sp('a', { externalIPs: ['192.0.2.1'] });
    const b = sp('b', { clusterIP: '10.96.0.20', externalIPs: ['192.0.2.1'] });
    const both = snapshot([[a, [ep('10.1.0.5')]], [b, [ep('10.1.0.6')]]]);
    await s.proxier.sync(both, changed([]), true);
    await s.proxier.sync(both, changed([]), true);
    assert.deepEqual((await ipvsText(s.ipvs)).filter((l) => l.includes('192.0.2.1')), ['TCP 192.0.2.1:80 rr -> 10.1.0.5:8080 w1']);
    assert.equal(s.log.lines.filter((l) => l.msg.startsWith('Several ServicePorts')).length, 1);
    await s.proxier.sync(snapshot([[b, [ep('10.1.0.6')]]]), changed([a.key], [a]), false);
    assert.deepEqual((await ipvsText(s.ipvs)).filter((l) => l.includes('192.0.2.1')), ['TCP 192.0.2.1:80 rr -> 10.1.0.5:8080 w0 10.1.0.6:8080 w1']);
    assert.deepEqual(await boundAddresses(s.rtnl), ['10.96.0.20', '192.0.2.1']);
  });

  it('an external IP that is a node address gets the virtual service before another Service\'s NodePort on it, whatever the keys', async () => {
    const s = setup();
    const a = sp('a', { nodePort: 30080 });
    const z = sp('z', { clusterIP: '10.96.0.20', port: 30080, externalIPs: ['10.0.0.1'] });
    const both = snapshot([[a, [ep('10.1.0.5')]], [z, [ep('10.1.0.6')]]]);
    await s.proxier.sync(both, changed([]), true);
    const on = async (addr: string) => (await ipvsText(s.ipvs)).filter((l) => l.includes(`${addr}:30080`));
    assert.deepEqual(await on('10.0.0.1'), ['TCP 10.0.0.1:30080 rr -> 10.1.0.6:8080 w1'], 'the external IP\'s Service, as the nftables mode dispatches it');
    assert.deepEqual(await on('10.0.0.2'), ['TCP 10.0.0.2:30080 rr -> 10.1.0.5:8080 w1'], 'the NodePort on the other node address');
    assert.equal(s.log.lines.filter((l) => l.msg.startsWith('Several ServicePorts')).length, 1);
  });
});
