// Issue 36, "One address, one owner", as a property: random clusters whose Services claim the same
// addresses, ports and NodePorts (duplicate ClusterIPs, external and LoadBalancer IPs equal to a
// ClusterIP, both families), edited at random (Services added, deleted and updated, endpoints moved,
// added and removed), go through the real pipeline: V1 objects into a ProxyState, takeChanges(),
// the nftables proxier's sync on the fake kernel, partial most of the time, full now and then.
// After every sync the fake kernel's elements (not the proxier's mirror) must send every dispatch
// key to the endpoints of its owner, as ownership-oracle.ts computes it by brute force, and hold
// nothing for a claimant that lost the key. Seeded: I36_SEED=<n> replays one failing sequence.
// Issue 36, "One address, one owner", as a property: random clusters whose Services claim the same
// addresses, ports and NodePorts (duplicate ClusterIPs, external and LoadBalancer IPs equal to a
// ClusterIP, both families), some with session affinity (chains of their own), Local traffic
// policies, loadBalancerSourceRanges (firewall-ips and firewall-allow elements), and endpoints here and elsewhere, ready,
// terminating or not ready, edited at random (Services added, deleted and updated, endpoints moved,
// added, removed and changing conditions), go through the real pipeline: V1 objects into a
// ProxyState, takeChanges(), the nftables proxier's sync on the fake kernel, partial most of the
// time, full now and then; now and then the kernel refuses a commit, or applies it and loses the
// reply, and the changes go back with ProxyState.requeue() as the app's sync loop does.
// After every successful sync the fake kernel (not the proxier's mirror) must send every dispatch
// key only where its owner sends it, as ownership-oracle.ts computes it by brute force: the
// endpoint maps, verdict maps and sets of the key, the affinity chains its verdicts
// reach (the owner's, DNATing to the owner's endpoints), and nothing for a claimant that lost it.
// Seeded: I36_SEED=<n> replays one failing sequence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProxyState, type TakenChanges } from '../../../src/core/proxy-state';
import type { FakeKernel } from '../../../src/native/testing';
import { TABLE } from '../../../src/proxier/nftables/names';
import { proxierOnFake } from './fake-helpers';
import {
  contestedKeys, describeClaim, expectedTable, oracleServicePorts, podOwner, servedServicePorts,
  type Contested, type OracleServicePort, type Served,
} from './ownership-oracle';
import { NAMES, THIS_NODE, World, describeEndpoint, toV1Service, toV1Slice, type EndpointModel, type Fam, type SliceModel } from './ownership-world';
import { seededRandom } from '../../helpers/seeded-random';

const SEQUENCES = 400;
const STEPS = 15;
/** How often a sync meets a kernel that refuses its commit or loses the reply. */
const FAULT_CHANCE = 0.08;
const NFT_FAMILY: Record<Fam, 'ip' | 'ip6'> = { IPv4: 'ip', IPv6: 'ip6' };
/** Sets whose elements are not keyed by a dispatch key. */
const KEYLESS = new Set(['cluster-ips', 'hairpin', 'affinity', 'nodeport-ips']);
/** The per-ServicePort chains (session affinity; a firewall- chain of an older version must not be left). */
const SERVICE_CHAIN = /^(service|local|external|firewall)-[A-Z2-7]{8}-/;

/** Our table in one family as the fake kernel lists it: elements set by set (sorted), rules chain by chain. */
interface KernelTable { sets: Map<string, string[]>; rules: Map<string, string[]>; chains: string[] }

function kernelTable(kernel: FakeKernel, family: Fam): KernelTable {
  const t: KernelTable = { sets: new Map(), rules: new Map(), chains: [] };
  const fam = NFT_FAMILY[family];
  for (const line of kernel.listRuleset({ family: fam, table: TABLE }).split('\n')) {
    const m = /^add (element|rule|chain) (?:ip|ip6) \S+ (\S+) ?(.*)$/.exec(line);
    if (!m) continue;
    const [, what, name, rest] = m;
    if (what === 'chain') t.chains.push(name);
    else if (what === 'rule') t.rules.set(name, [...(t.rules.get(name) ?? []), rest]);
    else if (name !== 'affinity') t.sets.set(name, [...(t.sets.get(name) ?? []), rest.slice(2, -2)]);
  }
  for (const els of t.sets.values()) els.sort();
  return t;
}

/** The dispatch key an element is for (address . protocol . port, or protocol . NodePort). */
function keyOf(set: string, el: string): string | undefined {
  if (KEYLESS.has(set)) return undefined;
  return el.split(' : ')[0].split(' . ').slice(0, set.includes('nodeport') ? 2 : 3).join(' . ');
}

/** Every element of every keyed set, by dispatch key, as `set element`. */
function byKey(sets: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [set, els] of sets) {
    for (const el of els) {
      const key = keyOf(set, el);
      if (key !== undefined) out.set(key, [...(out.get(key) ?? []), `${set} ${el}`]);
    }
  }
  for (const l of out.values()) l.sort();
  return out;
}

/** An element's text with each endpoint named by its Service (failure messages). */
const withPods = (line: string): string => line.replace(/: ((?:[\d.]+|[\da-f:]+) \. \d+)$/, (all, ep: string) => `${all} (pod of ${podOwner(ep)})`);

/** What a chain's rules do, in the oracle's terms: endpoints DNATed to, chains gone to, sources let through. */
function chainFacts(rules: readonly string[]): { dnat: string[]; gotos: string[]; returns: string[] } {
  const dnat = new Set<string>();
  const gotos = new Set<string>();
  const returns: string[] = [];
  for (const r of rules) {
    const d = /dnat (?:ip6? )?to (?:\[([^\]]+)\]|([\d.]+)):(\d+)/.exec(r);
    if (d) dnat.add(`${d[1] ?? d[2]} . ${d[3]}`);
    for (const g of r.matchAll(/\b(?:goto|jump) (\S+)/g)) if (g[1] !== 'mark-for-masquerade') gotos.add(g[1]);
    const ret = /saddr (\S+) return$/.exec(r);
    if (ret) returns.push(ret[1]);
  }
  return { dnat: [...dnat].sort(), gotos: [...gotos].sort(), returns: returns.sort() };
}

/**
 * Every dispatch key goes only where its owner sends it: its elements in every keyed set and map
 * are exactly the owner's; every chain a verdict for the key reaches is one of the owner's; every
 * per-ServicePort chain DNATs to the endpoints its ServicePort selects; then every set is exactly
 * what the served ServicePorts make it.
 */
function checkKernel(kernel: FakeKernel, sps: readonly OracleServicePort[], where: () => string): void {
  const { vips, nodePorts } = contestedKeys(sps);
  const served = servedServicePorts(sps);
  const servedOf = new Map(served.map((s) => [s.sp, s]));
  for (const family of ['IPv4', 'IPv6'] as Fam[]) {
    const got = kernelTable(kernel, family);
    const want = expectedTable(family, served);
    const gotByKey = byKey(got.sets);
    const wantByKey = byKey(want.sets);
    const claimed = new Set<string>();
    for (const c of [...vips, ...nodePorts]) {
      if (c.family !== family) continue;
      claimed.add(c.key);
      const owner = c.claims[0];
      const g = gotByKey.get(c.key) ?? [];
      const w = wantByKey.get(c.key) ?? [];
      if (g.join('\n') !== w.join('\n')) {
        assert.fail(`${where()}\n${family} ${c.key}: the kernel holds\n    ${g.map(withPods).join('\n    ') || 'nothing'}\n  but its owner makes it\n    ${w.map(withPods).join('\n    ') || 'nothing'}`
          + `\n  owner: ${describeClaim(owner)}\n  other claimants: ${c.claims.slice(1).map(describeClaim).join('; ') || 'none'}`);
      }
      checkReach(got, c, servedOf.get(owner.sp)!, where);
    }
    for (const [key, g] of gotByKey) {
      if (!claimed.has(key)) assert.fail(`${where()}\n${family} ${key}: nobody claims it, yet the kernel holds\n    ${g.join('\n    ')}`);
    }
    for (const set of new Set([...got.sets.keys(), ...want.sets.keys()])) {
      assert.deepEqual(got.sets.get(set) ?? [], want.sets.get(set) ?? [], `${where()}\n${family} set ${set}: the kernel holds what the owners do not make it`);
    }
    const chains = got.chains.filter((n) => SERVICE_CHAIN.test(n)).sort();
    assert.deepEqual(chains, [...want.chains.keys()].sort(), `${where()}\n${family}: the ServicePorts' own chains`);
    for (const [name, w] of want.chains) {
      assert.deepEqual(chainFacts(got.rules.get(name) ?? []), { dnat: [...w.dnat].sort(), gotos: w.gotos, returns: w.returns },
        `${where()}\n${family} chain ${name} of ${w.owner.sp.key}: what its rules do`);
    }
  }
}

/** Every chain a verdict for `c`'s key reaches in the kernel is one of its owner's. */
function checkReach(got: KernelTable, c: Contested, owner: Served, where: () => string): void {
  const mine = new Set(Object.values(owner.chains));
  for (const set of ['service-ips', 'service-nodeports']) {
    for (const el of got.sets.get(set) ?? []) {
      if (keyOf(set, el) !== c.key) continue;
      const todo = [el.slice(el.indexOf(' : goto ') + 8)];
      const seen = new Set<string>();
      while (todo.length > 0) {
        const chain = todo.pop()!;
        if (seen.has(chain)) continue;
        seen.add(chain);
        if (!mine.has(chain)) {
          assert.fail(`${where()}\n${c.family} ${c.key}: ${set} { ${el} } reaches chain ${chain}, not one of its owner's`
            + `\n  owner: ${describeClaim(c.claims[0])}\n  other claimants: ${c.claims.slice(1).map(describeClaim).join('; ') || 'none'}`);
        }
        todo.push(...chainFacts(got.rules.get(chain) ?? []).gotos);
      }
    }
  }
}

/** How many checks met each kind of collision (a contested key with a loser of that kind). */
interface Coverage {
  checks: number; clusterVsExternal: number; duplicateClusterIP: number; externalVsExternal: number; nodePort: number; ownerWithoutEndpoints: number;
  /** A claimant with session affinity (its own chains) on a contested key, and one that lost with chains that exist. */
  affinity: number; affinityLoserWithChains: number;
  /** A claimant whose policy for that key is Local, and an owner with that policy and usable endpoints here and elsewhere. */
  localPolicy: number; localOwnerMixed: number;
  /** The owner's selection fell back to serving terminating endpoints. */
  terminatingFallback: number;
  /** A claimant that firewalls the key (an LB IP with source ranges). */
  sourceRanges: number;
  /** Syncs the kernel failed (refused, reply lost), and checks after the full sync that followed one. */
  failedSyncs: number; lostReplies: number; recoveries: number;
}

const NEW_COVERAGE = (): Coverage => ({
  checks: 0, clusterVsExternal: 0, duplicateClusterIP: 0, externalVsExternal: 0, nodePort: 0, ownerWithoutEndpoints: 0,
  affinity: 0, affinityLoserWithChains: 0, localPolicy: 0, localOwnerMixed: 0, terminatingFallback: 0, sourceRanges: 0,
  failedSyncs: 0, lostReplies: 0, recoveries: 0,
});

function count(seen: Coverage, sps: readonly OracleServicePort[]): void {
  const { vips, nodePorts } = contestedKeys(sps);
  const served = new Map(servedServicePorts(sps).map((s) => [s.sp, s]));
  const has = (cond: boolean, k: keyof Coverage) => { if (cond) seen[k]++; };
  const contested = vips.filter((c) => c.claims.length > 1);
  const all = [...contested, ...nodePorts.filter((c) => c.claims.length > 1)];
  const usable = (s: Served) => [...s.cluster, ...s.local];
  const localFor = (c: Contested, k: { sp: OracleServicePort; kind: string }) => (k.kind === 'clusterIP' ? k.sp.internalLocal : k.sp.externalLocal);
  seen.checks++;
  has(contested.some((c) => c.claims[0].kind === 'clusterIP' && c.claims.some((k) => k.kind === 'external')), 'clusterVsExternal');
  has(contested.some((c) => c.claims.filter((k) => k.kind === 'clusterIP').length > 1), 'duplicateClusterIP');
  has(contested.some((c) => c.claims.filter((k) => k.kind === 'external').length > 1), 'externalVsExternal');
  has(nodePorts.some((c) => c.claims.length > 1), 'nodePort');
  has(all.some((c) => usable(served.get(c.claims[0].sp)!).length === 0 && c.claims.some((k) => usable(served.get(k.sp)!).length > 0)), 'ownerWithoutEndpoints');
  has(all.some((c) => c.claims.some((k) => k.sp.affinity)), 'affinity');
  has(all.some((c) => c.claims.slice(1).some((k) => k.sp !== c.claims[0].sp && k.sp.affinity && usable(served.get(k.sp)!).length > 0)), 'affinityLoserWithChains');
  has(all.some((c) => c.claims.some((k) => localFor(c, k))), 'localPolicy');
  // The owner's Local list is a strict part of its endpoints: a Cluster list under the key would show.
  const mixed = (sp: OracleServicePort) => sp.eps.some((e) => e.local && e.ready) && sp.eps.some((e) => !e.local && (e.ready || e.serving));
  has(all.some((c) => localFor(c, c.claims[0]) && mixed(c.claims[0].sp)), 'localOwnerMixed');
  has(all.some((c) => served.get(c.claims[0].sp)!.fallback), 'terminatingFallback');
  has(contested.some((c) => c.claims.some((k) => k.sp.sourceRanges.length > 0 && k.sp.lbIPs.includes(c.key.slice(0, c.key.indexOf(' . '))))), 'sourceRanges');
}

async function runSequence(seed: number, seen: Coverage): Promise<void> {
  const world = new World(seededRandom(seed));
  const state = new ProxyState({ nodeName: THIS_NODE, ipFamilies: ['IPv4', 'IPv6'], log: { warn: () => undefined }, startTime: new Date(0) });
  const { proxier, kernel, nft } = proxierOnFake();
  const log: string[] = [];
  const where = () => `seed ${seed} (replay: I36_SEED=${seed}); steps so far:\n  ${log.join('\n  ')}`;
  const pods = (eps: readonly EndpointModel[]) => `[${eps.map(describeEndpoint).join(', ')}]`;

  const writeSlice = (s: SliceModel, kind: 'add' | 'update') => {
    world.slices.set(`${s.service}/${s.family}`, s);
    state.onEndpointSlice(kind, toV1Slice(s));
  };
  const moveEndpoints = (name: string, family: Fam, endpoints: EndpointModel[]) => {
    const key = `${name}/${family}`;
    const old = world.slices.get(key);
    const svc = world.services.get(name);
    const ports = svc ? svc.ports.map((p) => ({ name: p.name, protocol: p.protocol, target: p.target })) : old?.ports ?? [];
    writeSlice({ service: name, family, endpoints, ports }, old ? 'update' : 'add');
  };

  const steps: (() => string | undefined)[] = [
    () => { // add a Service (and, usually, its slices)
      const name = NAMES.find((n) => !world.services.has(n) && world.chance(0.5)) ?? NAMES.find((n) => !world.services.has(n));
      if (!name) return undefined;
      const svc = world.newService(name);
      world.services.set(name, svc);
      state.onService('add', toV1Service(svc));
      const added: string[] = [];
      for (const f of svc.families) {
        if (!world.chance(0.85)) continue;
        const eps = world.randomPods(svc, name, f);
        moveEndpoints(name, f, eps);
        added.push(`${f} ${pods(eps)}`);
      }
      const { metadata, spec } = toV1Service(svc);
      return `add ${name} ${JSON.stringify(spec)} created +${svc.created % 100} uid ${metadata!.uid}; endpoints ${added.join(' ') || 'unchanged'}`;
    },
    () => { // delete a Service, and usually its slices
      const present = [...world.services.keys()];
      if (present.length === 0) return undefined;
      const name = world.pick(present);
      state.onService('delete', toV1Service(world.services.get(name)!));
      world.services.delete(name);
      const dropSlices = world.chance(0.7);
      if (dropSlices) {
        for (const [key, s] of world.slices) {
          if (s.service !== name) continue;
          world.slices.delete(key);
          state.onEndpointSlice('delete', toV1Slice(s));
        }
      }
      return `delete ${name}${dropSlices ? ' and its slices' : ''}`;
    },
    () => { // update a Service: new external IPs, LB ingress, NodePorts, sometimes a port, an affinity, a policy, source ranges
      const present = [...world.services.values()];
      if (present.length === 0) return undefined;
      const svc = world.pick(present);
      world.randomizeExposure(svc);
      world.randomizePolicies(svc, 0.25);
      state.onService('update', toV1Service(svc));
      return `update ${svc.name}: ${JSON.stringify(toV1Service(svc).spec)} ingress ${JSON.stringify(svc.ingress)}`;
    },
    () => { // an endpoint move (rollout): the slice's endpoints replaced
      const name = world.pick(NAMES);
      const family = world.pick(['IPv4', 'IPv6'] as Fam[]);
      const eps = world.randomPods(world.services.get(name), name, family);
      moveEndpoints(name, family, eps);
      return `endpoints of ${name} ${family} -> ${pods(eps)}`;
    },
    () => { // one endpoint added or removed
      const slices = [...world.slices.values()];
      if (slices.length === 0) return undefined;
      const s = world.pick(slices);
      const more = world.randomPods(world.services.get(s.service), s.service, s.family).filter((e) => !s.endpoints.some((o) => o.ip === e.ip));
      const gone = s.endpoints.length > 0 && world.chance(0.5) ? world.pick(s.endpoints) : undefined;
      const eps = gone ? s.endpoints.filter((e) => e !== gone) : [...s.endpoints, ...more.slice(0, 1)];
      moveEndpoints(s.service, s.family, eps);
      return `endpoints of ${s.service} ${s.family} now ${pods(eps)}`;
    },
    () => { // one endpoint's conditions change (a pod becomes ready, starts terminating, fails its probe)
      const slices = [...world.slices.values()].filter((s) => s.endpoints.length > 0);
      if (slices.length === 0) return undefined;
      const s = world.pick(slices);
      const e = world.pick(s.endpoints);
      const eps = s.endpoints.map((o) => (o === e ? { ...o, state: world.randomState() } : o));
      moveEndpoints(s.service, s.family, eps);
      return `endpoints of ${s.service} ${s.family} now ${pods(eps)}`;
    },
  ];
  const weights = [3, 1.5, 3, 3, 2, 2];
  const total = weights.reduce((a, b) => a + b, 0);

  let first = true;
  /** The fault armed for the next commit, and the changes of the sync it failed, until the next sync succeeds. */
  let fault: 'refused' | 'reply lost' | undefined;
  let failed: TakenChanges | undefined;
  for (let step = 0; step < STEPS || failed; step++) {
    let x = world.r() * total;
    const i = weights.findIndex((w) => (x -= w) < 0);
    const did = steps[i]();
    if (did) log.push(`${step}: ${did}`);
    // Several changes between syncs now and then; the last step always syncs.
    if (step < STEPS - 1 && world.chance(0.25)) continue;
    // After a failure the app asks for a full sync; the proxier must make it full whatever it is asked.
    const full = first || world.chance(failed ? 0.5 : 0.15);
    first = false;
    if (!fault && !failed && world.chance(FAULT_CHANCE)) {
      // Refused (nothing applied), or applied with its reply lost (ENOBUFS): the outcome the proxier cannot know.
      if (world.chance(0.5)) { nft.inject({ errno: world.pick(['ENOMEM', 'EPERM', 'ENOENT']), at: -1 }); fault = 'refused'; }
      else { nft.loseNextReply(); fault = 'reply lost'; }
    }
    const taken = state.takeChanges();
    for (const key of failed?.changes.services ?? []) {
      assert.ok(taken.changes.services.has(key), `${where()}\nthe failed sync's change of ${key} was not handed back by requeue()`);
    }
    const before = kernel.listRuleset();
    const commits = nft.commits.length;
    const res = await proxier.sync(taken.snapshot, taken.changes, full);
    const sps = oracleServicePorts(world);
    if (!res.ok) {
      assert.ok(fault && nft.commits.length > commits && nft.commits.at(-1)!.error, `${where()}\nsync failed: ${res.error?.message}`);
      log.push(`${step}: ${full ? 'full' : 'partial'} sync failed (${fault}: ${res.error?.message})`);
      // Refused: the kernel holds what it held; reply lost: what this sync wrote.
      if (fault === 'refused') assert.equal(kernel.listRuleset(), before, `${where()}\na refused commit changed the kernel`);
      else checkKernel(kernel, sps, where);
      seen.failedSyncs++;
      if (fault === 'reply lost') seen.lostReplies++;
      state.requeue(taken);
      fault = undefined;
      failed = taken;
      continue;
    }
    assert.ok(!fault || nft.commits.length === commits, `${where()}\na commit met an armed fault (${fault}) and the sync succeeded`);
    if (failed) assert.equal(res.full, true, `${where()}\nthe sync after a failed one was not full`);
    log.push(`${step}: ${res.full ? 'full' : 'partial'} sync`);
    checkKernel(kernel, sps, where);
    count(seen, sps);
    if (failed) seen.recoveries++;
    failed = undefined;
  }
}

const only = process.env.I36_SEED;
const seeds = only ? [Number(only)] : Array.from({ length: SEQUENCES }, (_, i) => i + 1);

test(`every dispatch key goes only where its owner sends it after every sync (${seeds.length} random sequences of ${STEPS} steps)`, async (t) => {
  const seen = NEW_COVERAGE();
  const started = Date.now();
  for (const seed of seeds) await runSequence(seed, seen);
  t.diagnostic(`checks that met each collision: ${JSON.stringify(seen)} in ${Date.now() - started} ms`);
  // Not vacuous: the checks met every kind of collision, and the kernel failed syncs, many times over.
  if (seeds.length === SEQUENCES) {
    for (const [what, n] of Object.entries(seen)) assert.ok(n >= 100, `only ${n} checks with ${what}: ${JSON.stringify(seen)}`);
  }
});
