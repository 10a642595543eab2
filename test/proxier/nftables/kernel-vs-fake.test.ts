// The proxier's logic tests run on the fake kernel; this keeps that honest at the proxier's level.
// The same syncs, and the same foreign changes between them, against a real kernel (in a fresh
// namespace) and FakeKernel: after each step both proxiers must report the same results and
// refusals, have committed the same ops, and their kernels must hold the same tables.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NetlinkError, Nft, Transaction, type TableDump } from '../../../src/native';
import { FakeKernel } from '../../../src/native/testing';
import { NftablesProxier } from '../../../src/proxier/nftables';
import { serviceChainNames } from '../../../src/proxier/nftables/names';
import type { ChangeSet, Endpoint, ProxySnapshot, ServicePort } from '../../../src/core/types';
import { createNetns, type TestNetns } from '../../helpers/netns';
import { changed, ep, fourServices, proxierOptions, snapshot, sp } from './fixtures';

type Handle = Pick<Nft, 'commit' | 'dumpTable' | 'dumpSet' | 'listTables'>;
const T = 'kube-proxy';

const { svc1, svc2, svc6, entries: base } = fourServices();
// IPv6 session affinity: chains of its own (affinity-chains.ts).
const bad = sp('bad', { key: 'ns1/bad:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::50', affinityTimeoutSeconds: 60 });
const good = sp('good', { clusterIP: '172.30.0.51', externalPolicyLocal: true, loadBalancerIPs: ['5.6.7.9'] });
// svc2 grows past SELECT_RULES_MAX: its ClusterIP and LB IP go through the count-bit tests.
const six = (third: number, port = 80) => Array.from({ length: 6 }, (_, i) => ep(`10.180.${third}.${i + 1}`, port));
const grown: [ServicePort, Endpoint[]][] = base.map(([s, e]) => (s === svc2 ? [s, six(1, 8080)] : [s, e]));
// svc1 (a NodePort) and svc6 (IPv6) to larger counts, then back: elements replaced, counts' chains added and removed.
const larger = (n1: number, n6: number): [ServicePort, Endpoint[]][] => grown.map(([s, e]) => {
  if (s === svc1) return [s, Array.from({ length: n1 }, (_, i) => ep(`10.180.0.${i + 1}`))];
  return s === svc6 ? [s, Array.from({ length: n6 }, (_, i) => ep(`fd00:10::${i + 1}`))] : [s, e];
});
const withBad: [ServicePort, Endpoint[]][] = [...grown, [bad, [ep('fd00:10::9:1')]], [good, [ep('10.180.9.2', 80, { isLocal: true })]]];
const fewer = withBad.filter(([s]) => s !== svc2 && s !== svc6);
const broken = fewer.map(([s, e]): [ServicePort, Endpoint[]] => (s === svc1 ? [{ ...s, clusterIP: 'fd00::41' }, e] : [s, e]));

/** `expect`: what the kernel side must report, so that each step does what its name says. */
type Step =
  | { name: string; sync: [ProxySnapshot, ChangeSet, boolean]; expect: { ok: boolean; full: boolean; refused?: string[]; error?: string } }
  | { name: string; tamper: () => Transaction }
  | { name: string; dirty: true };

const STEPS: Step[] = [
  { name: 'full sync', sync: [snapshot(base), changed(), true], expect: { ok: true, full: true } },
  { name: 'partial: endpoints change', sync: [snapshot(grown), changed(svc2.key), false], expect: { ok: true, full: false } },
  { name: 'partial: counts cross SELECT_RULES_MAX', sync: [snapshot(larger(5, 7)), changed(svc1.key, svc6.key), false], expect: { ok: true, full: false } },
  { name: 'partial: between larger counts', sync: [snapshot(larger(6, 9)), changed(svc1.key, svc6.key), false], expect: { ok: true, full: false } },
  { name: 'full sync with larger counts', sync: [snapshot(larger(6, 9)), changed(), true], expect: { ok: true, full: true } },
  { name: 'partial: counts back under SELECT_RULES_MAX', sync: [snapshot(grown), changed(svc1.key, svc6.key), false], expect: { ok: true, full: false } },
  { name: 'someone makes a base chain where an IPv6 affinity chain goes',
    tamper: () => new Transaction().addChain('ip6', T, { name: serviceChainNames(bad).cluster, base: { type: 'filter', hook: 'input', priority: 0 } }) },
  { name: 'partial: one Service refused, one programmed', sync: [snapshot(withBad), changed(bad.key, good.key), false],
    expect: { ok: true, full: false, refused: [bad.key] } },
  { name: 'full sync refuses it again', sync: [snapshot(withBad), changed(), true], expect: { ok: true, full: true, refused: [bad.key] } },
  { name: 'partial: Services removed', sync: [snapshot(fewer), changed(svc2.key, svc6.key), false], expect: { ok: true, full: false } },
  { name: 'someone deletes an element',
    tamper: () => new Transaction().declareSet('ip', T, { name: 'cluster-ip-ports', key: ['ipv4_addr', 'inet_proto', 'inet_service'] })
      .deleteElements('ip', T, 'cluster-ip-ports', [{ key: ['172.30.0.51', 'tcp', 80] }]) },
  { name: 'partial: drift makes the sync fail', sync: [snapshot(withBad.filter(([s]) => s !== good)), changed(good.key), false],
    expect: { ok: false, full: false, error: 'ENOENT' } },
  // The repair reads the table, finds the chain someone made, and deletes it (not ours to keep): bad is programmed.
  { name: 'the next sync repairs', sync: [snapshot(fewer), changed(), false], expect: { ok: true, full: true, refused: [] } },
  { name: 'someone flushes the table', tamper: () => new Transaction().flushTable('ip', T) },
  { name: 'the monitor saw it', dirty: true },
  { name: 'the repair sync', sync: [snapshot(fewer), changed(), false], expect: { ok: true, full: true } },
  { name: 'partial: a change that fails validation keeps the previous rules', sync: [snapshot(broken), changed(svc1.key), false],
    expect: { ok: true, full: false, refused: [svc1.key] } },
  { name: 'full sync keeps them too', sync: [snapshot(broken), changed(), true], expect: { ok: true, full: true, refused: [svc1.key] } },
];

const hex = (b?: Buffer) => b?.toString('hex');
function normalized(d: TableDump): unknown {
  return {
    chains: d.chains.map(({ handle: _, ...c }) => c).sort((a, b) => a.name.localeCompare(b.name)),
    rules: d.rules.map(({ handle: _, ...r }) => r),
    sets: d.sets.map((s) => ({
      ...s, elements: s.elements.map((e) => ({ ...e, key: hex(e.key), keyEnd: hex(e.keyEnd), data: hex(e.data) }))
        .sort((a, b) => `${a.key}/${a.flags}`.localeCompare(`${b.key}/${b.flags}`)),
    })).sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** A proxier on one kernel, a handle for the other process, and the ops of every commit it made. */
class Side {
  readonly ops: string[][] = [];
  readonly proxier: NftablesProxier;
  constructor(private readonly nft: Handle, private readonly other: Handle) {
    const recording: Handle = {
      commit: (tx) => { this.ops.push(Array.from({ length: tx.opCount }, (_, i) => tx.describe(i))); return nft.commit(tx); },
      dumpTable: (...a) => nft.dumpTable(...a),
      dumpSet: (...a) => nft.dumpSet(...a),
      listTables: () => nft.listTables(),
    };
    this.proxier = new NftablesProxier(proxierOptions(recording, { nodePortAddresses: ['192.168.0.0/24', 'primary'], serviceCIDRs: ['172.30.0.0/16'] }));
  }

  async run(step: Step): Promise<unknown> {
    this.ops.length = 0;
    if ('dirty' in step) return this.proxier.markDirty('foreign_change');
    if ('tamper' in step) return this.other.commit(step.tamper()).then(() => 'committed');
    const r = await this.proxier.sync(...step.sync);
    return { ...r, error: r.error instanceof NetlinkError ? r.error.code : r.error?.message, refused: [...this.proxier.refusedServicePorts().keys()] };
  }

  async tables(): Promise<unknown> {
    const out: Record<string, unknown> = {};
    for (const t of (await this.nft.listTables()).sort((a, b) => `${a.family} ${a.name}`.localeCompare(`${b.family} ${b.name}`))) {
      out[`${t.family} ${t.name}`] = normalized(await this.nft.dumpTable(t.family, t.name));
    }
    return out;
  }
}

describe('the proxier on the kernel and on the fake, step by step', () => {
  let ns: TestNetns;
  const opened: Nft[] = [];
  let real: Side;
  let faked: Side;
  before(() => {
    ns = createNetns('kpn-kvf');
    opened.push(Nft.open({ netns: ns.path }), Nft.open({ netns: ns.path }));
    real = new Side(opened[0], opened[1]);
    const kernel = new FakeKernel();
    faked = new Side(kernel.open(), kernel.open());
  });
  after(() => { for (const n of opened) n.close(); ns?.destroy(); });

  for (const step of STEPS) {
    it(step.name, async () => {
      const r = await real.run(step);
      if ('expect' in step) {
        const got = r as Record<string, unknown>;
        for (const [k, v] of Object.entries(step.expect)) assert.deepEqual(got[k], v, `the kernel side: ${k} in ${JSON.stringify(r)}`);
      }
      assert.deepEqual(await faked.run(step), r);
      assert.deepEqual(faked.ops, real.ops);
      assert.deepEqual(await faked.tables(), await real.tables());
    });
  }
});
