// IpvsSocket against a kernel with IPVS (the guest: bash /work/shared/ipvs-guest/run-ipvs-guest.sh).
// Every test works in fresh network namespaces (IPVS state is per namespace). On a kernel without
// IPVS each test fails at IpvsSocket.open with "the kernel has no IPVS".
import assert from 'node:assert/strict';
import { SocketAddress } from 'node:net';
import { test } from 'node:test';
import { IpvsSocket } from '../../src/native';
import type { IpvsDestination, IpvsOp, IpvsService, IpvsServiceKey, IpvsServiceState } from '../../src/native/ipvs/ipvs-types';
import { IPVS_SVC_F_HASHED, IPVS_SVC_F_PERSISTENT } from '../../src/native/ipvs/ipvs-types';
import { TestNetns, withNetns } from '../helpers/netns';

const EEXIST = 17;
const ESRCH = 3;
const ENOENT = 2;

async function withIpvs<T>(fn: (ipvs: IpvsSocket, ns: TestNetns) => Promise<T>): Promise<T> {
  return withNetns(async (ns) => {
    const ipvs = await IpvsSocket.open({ netns: ns.path });
    try {
      return await fn(ipvs, ns);
    } finally {
      ipvs.close();
    }
  }, 'kpn-ipvs');
}

const svc = (s: Partial<IpvsService> & IpvsServiceKey): IpvsService =>
  ({ scheduler: 'rr', flags: 0, timeout: 0, prefixLength: s.family === 4 ? 32 : 128, ...s });
const dest = (address: string, port: number, weight = 1): IpvsDestination =>
  ({ family: address.includes(':') ? 6 : 4, address, port, weight, forward: 'masq' });
const key = (s: IpvsService): IpvsServiceKey => ({ family: s.family, protocol: s.protocol, address: s.address, port: s.port });
const canonical6 = (a: string) => new SocketAddress({ address: a, family: 'ipv6' }).address;

/** A dump sorted by protocol/address/port, its dests by address/port, counts checked and dropped. */
function normalized(dump: IpvsServiceState[]) {
  const id = (x: { address: string; port: number }) => `${x.address}|${x.port}`;
  return dump
    .map((s) => ({
      ...s,
      destinations: s.destinations.map((d) => {
        for (const c of [d.activeConns, d.inactiveConns, d.persistConns]) assert.ok(Number.isInteger(c) && c >= 0);
        return { family: d.family, address: d.address, port: d.port, weight: d.weight, forward: d.forward };
      }).sort((a, b) => id(a).localeCompare(id(b))),
    }))
    .sort((a, b) => `${a.protocol}${id(a)}`.localeCompare(`${b.protocol}${id(b)}`));
}

const services: IpvsService[] = [
  svc({ family: 4, protocol: 'TCP', address: '10.96.0.1', port: 443 }),
  svc({ family: 4, protocol: 'UDP', address: '10.96.0.10', port: 53, flags: IPVS_SVC_F_PERSISTENT, timeout: 10800 }),
  svc({ family: 4, protocol: 'SCTP', address: '10.96.0.20', port: 3868, scheduler: 'wrr', prefixLength: 24, flags: IPVS_SVC_F_PERSISTENT, timeout: 60 }),
  svc({ family: 6, protocol: 'TCP', address: 'fd00:0:0:0:0:0:0:1', port: 80, flags: IPVS_SVC_F_PERSISTENT, timeout: 300 }),
  svc({ family: 6, protocol: 'UDP', address: '2001:DB8:0:1:1:1:1:1', port: 53, scheduler: 'sh' }),
  svc({ family: 6, protocol: 'SCTP', address: '1:0:0:2:0:0:0:3', port: 9, prefixLength: 64, flags: IPVS_SVC_F_PERSISTENT, timeout: 5 }),
];
const destsOf = (s: IpvsService) => s.family === 4
  ? [dest('10.1.0.5', 8080, 1), dest('10.1.0.6', 8080, 3)]
  : [dest('fd00:1::5', 8080, 1), dest('fd00:1:0:0:0:0:0:6', 8080, 0)];

function expected(list: IpvsService[], dests: (s: IpvsService) => IpvsDestination[]) {
  return normalized(list.map((s) => ({
    ...s,
    address: s.family === 6 ? canonical6(s.address) : s.address,
    flags: s.flags | IPVS_SVC_F_HASHED,
    destinations: dests(s).map((d) => ({ ...d, address: d.family === 6 ? canonical6(d.address) : d.address, activeConns: 0, inactiveConns: 0, persistConns: 0 })),
  })));
}

test('services of each protocol and family, with and without persistence, and their dests read back exactly', async () => {
  await withIpvs(async (ipvs) => {
    const ops: IpvsOp[] = [
      ...services.map((s): IpvsOp => ({ op: 'addService', service: s })),
      ...services.flatMap((s) => destsOf(s).map((d): IpvsOp => ({ op: 'addDest', service: key(s), dest: d }))),
    ];
    assert.deepEqual(await ipvs.apply(ops), { applied: ops.length, errors: [] });
    assert.deepEqual(normalized(await ipvs.dump()), expected(services, destsOf));
    // Addresses come back in node's canonical text (inet_ntop in the addon).
    const addrs = (await ipvs.dump()).map((s) => s.address).sort();
    assert.deepEqual(addrs, ['10.96.0.1', '10.96.0.10', '10.96.0.20', '1:0:0:2::3', '2001:db8:0:1:1:1:1:1', 'fd00::1'].sort());
    const dests = await ipvs.dumpDestinations(key(services[3]));
    assert.deepEqual(dests.map((d) => d.address).sort(), ['fd00:1::5', 'fd00:1::6']);
  });
});

test('edits (scheduler, persistence, weight) and deletes', async () => {
  await withIpvs(async (ipvs) => {
    const [a, b] = services;
    await ipvs.apply([
      { op: 'addService', service: a }, { op: 'addService', service: b },
      ...[a, b].flatMap((s) => destsOf(s).map((d): IpvsOp => ({ op: 'addDest', service: key(s), dest: d }))),
    ]);
    const a2 = { ...a, scheduler: 'wrr', flags: IPVS_SVC_F_PERSISTENT, timeout: 30 };
    const d2 = { ...destsOf(a)[0], weight: 7 };
    const r = await ipvs.apply([
      { op: 'editService', service: a2 },
      { op: 'editDest', service: key(a), dest: d2 },
      { op: 'deleteDest', service: key(a), dest: { address: '10.1.0.6', port: 8080 } },
      { op: 'deleteService', service: key(b) },
    ]);
    assert.deepEqual(r, { applied: 4, errors: [] });
    assert.deepEqual(normalized(await ipvs.dump()), expected([a2], () => [d2]));
  });
});

test('a batch with failing ops in the middle reports exactly those, with the kernel errno, and applies the rest', async () => {
  await withIpvs(async (ipvs) => {
    const [a, b, c] = services;
    await ipvs.apply([{ op: 'addService', service: a }]);
    const missing = svc({ family: 4, protocol: 'TCP', address: '10.96.9.9', port: 1 });
    const r = await ipvs.apply([
      { op: 'addService', service: b },                                          // 0 ok
      { op: 'addService', service: a },                                          // 1 exists
      { op: 'addDest', service: key(b), dest: dest('10.1.0.5', 53) },            // 2 ok
      { op: 'deleteService', service: key(missing) },                            // 3 no such service
      { op: 'addDest', service: key(missing), dest: dest('10.1.0.5', 1) },       // 4 no such service
      { op: 'deleteDest', service: key(b), dest: { address: '10.1.0.9', port: 53 } }, // 5 no such dest
      { op: 'addDest', service: key(b), dest: dest('10.1.0.5', 53) },            // 6 exists
      { op: 'addService', service: c },                                          // 7 ok
    ]);
    assert.deepEqual(r.errors.map((e) => [e.index, e.errno, e.code]), [
      [1, EEXIST, 'EEXIST'], [3, ESRCH, 'ESRCH'], [4, ESRCH, 'ESRCH'], [5, ENOENT, 'ENOENT'], [6, EEXIST, 'EEXIST'],
    ]);
    assert.equal(r.applied, 3);
    assert.equal(r.errors[0].message, 'addService TCP 10.96.0.1:443: EEXIST');
    assert.equal(r.errors[2].message, 'addDest TCP 10.96.9.9:1 -> 10.1.0.5:1: ESRCH');
    const dump = normalized(await ipvs.dump());
    assert.deepEqual(dump.map((s) => `${s.protocol} ${s.address}:${s.port} ${s.destinations.length}`),
      ['SCTP 10.96.0.20:3868 0', 'TCP 10.96.0.1:443 0', 'UDP 10.96.0.10:53 1']);
    await assert.rejects(ipvs.dumpDestinations(key(missing)), (e: Error & { errno?: number; code?: string }) => e.errno === ENOENT && e.code === 'ENOENT');
  });
});

test('20k ops in one apply', async () => {
  await withIpvs(async (ipvs) => {
    const ops: IpvsOp[] = [];
    for (let i = 0; i < 2000; i++) {
      const s = svc({ family: 4, protocol: 'TCP', address: `10.100.${i >> 8}.${i & 255}`, port: 80 });
      ops.push({ op: 'addService', service: s });
      for (let j = 0; j < 9; j++) ops.push({ op: 'addDest', service: key(s), dest: dest(`10.2.${j}.${i & 255}`, 8000 + (i >> 8)) });
    }
    assert.equal(ops.length, 20000);
    assert.deepEqual(await ipvs.apply(ops), { applied: 20000, errors: [] });
    const dump = await ipvs.dump();
    assert.equal(dump.length, 2000);
    assert.equal(dump.reduce((n, s) => n + s.destinations.length, 0), 18000);
  });
});

test('timeouts are set and read back; 0 leaves one as it is', async () => {
  await withIpvs(async (ipvs) => {
    await ipvs.setTimeouts({ tcp: 900, tcpFin: 120, udp: 300 });
    assert.deepEqual(await ipvs.getTimeouts(), { tcp: 900, tcpFin: 120, udp: 300 });
    await ipvs.setTimeouts({ tcp: 0, tcpFin: 30, udp: 0 });
    assert.deepEqual(await ipvs.getTimeouts(), { tcp: 900, tcpFin: 30, udp: 300 });
  });
});

test('a socket in netns A does not see netns B\'s services', async () => {
  await withIpvs(async (a) => {
    await withIpvs(async (b) => {
      await b.apply([{ op: 'addService', service: services[0] }]);
      await a.apply([{ op: 'addService', service: services[1] }]);
      assert.deepEqual((await a.dump()).map((s) => s.address), ['10.96.0.10']);
      assert.deepEqual((await b.dump()).map((s) => s.address), ['10.96.0.1']);
    });
  });
});
