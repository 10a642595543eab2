// For `explain` (nftables mode): the path a new connection to one ServicePort takes through our
// table, step by step, for a pod on this node and for a client outside the cluster, with the
// addresses and policies of explain-addresses.ts.
//
// The path is not a description written beside the compiler: the ServicePort and the base are
// compiled exactly as a sync would (compileService, compileBase), the walk asks the compiled
// elements whether the destination is in each set, and every step shows the compiled rule's own nft
// text. Only the walk's order mirrors compile-base.ts's chains; a rule the walk expects and does not
// find throws (so a reshaped chain fails the tests instead of making explain lie).
import type { SelectedEndpoints, ServicePort } from '../../core/types';
import type { Rule } from '../../native/txn/rule-builder';
import { compileService, ServicePortError } from './compile-service';
import type { FamilyContext } from './context';
import type { ElementDef, KeyPart, ServiceObjects } from './desired';
import { addressesOf, destinations, policiesOf, type AddressKind, type Destination, type Policies, type ReachableAddress } from './explain-addresses';
import { CompiledTable, DISPATCH, affinityTimeoutOf, says, usesSet } from './explain-table';
import { CHAIN, ENDPOINT_MAPS, SET, affinityRecordsName, parseCountBitSetName, type EndpointMapFamily } from './names';

export type { AddressKind, Policies, ReachableAddress } from './explain-addresses';

/** A pod on this node (detect-local says so, when it can), or a client outside the cluster whose packets reach this node. */
export type Client = 'pod' | 'outside';

export interface PathStep {
  /** Set on the first step in a netfilter hook: 'nat prerouting', 'filter input', ... */
  hook?: string;
  chain: string;
  /** The rule's nft text, or a parenthesised note when no rule matches. */
  rule: string;
  verdict: string;
}

export type Outcome = 'dnat' | 'reject' | 'drop' | 'accept';

export interface ConnectionPath {
  kind: AddressKind;
  /** Destination address ('*' for a NodePort on unknown addresses) and port. */
  ip: string;
  port: number;
  client: Client;
  /** Only on destinations with a firewall (loadBalancerSourceRanges): which sources the path is for. */
  source?: 'allowed' | 'not allowed';
  steps: PathStep[];
  outcome: Outcome;
  /** dnat: the endpoints one is picked from (`ip:port`). */
  endpoints?: string[];
  /** The endpoint sees this node's address as the source (masquerade). */
  masquerade: boolean;
  summary: string;
}

export interface PathExplanation {
  addresses: ReachableAddress[];
  policies: Policies;
  paths: ConnectionPath[];
  /** Set when the proxy refuses this ServicePort (nothing of it is programmed): why. */
  refused?: string;
}

export interface PathInputs {
  sp: ServicePort;
  /** The model's selection for it (explainEndpoints' `selection`); undefined = no endpoints. */
  selection: SelectedEndpoints | undefined;
  ctx: FamilyContext;
  /** This node's addresses, when known: the NodePort addresses listed. */
  localAddresses?: readonly string[];
}

/** Addresses, policies and one path per (address, client); a refused ServicePort gets its reason and no path. */
export function explainPath(inputs: PathInputs): PathExplanation {
  const { sp, ctx } = inputs;
  const policies = policiesOf(sp, ctx);
  let objects: ServiceObjects;
  try {
    objects = compileService(sp, inputs.selection, ctx);
  } catch (e) {
    if (!(e instanceof ServicePortError)) throw e;
    return { addresses: addressesOf(sp, ctx, inputs.localAddresses, []), policies, paths: [], refused: e.message };
  }
  const table = new CompiledTable(ctx, objects);
  const addresses = addressesOf(sp, ctx, inputs.localAddresses, objects.elements);
  const paths: ConnectionPath[] = [];
  for (const dest of destinations(addresses)) {
    const firewalled = table.element(SET.firewallIPs, dest.key) !== undefined;
    for (const client of ['pod', 'outside'] as const) paths.push(walk(table, ctx, dest, client, firewalled ? 'allowed' : undefined));
    if (firewalled) paths.push(walk(table, ctx, dest, 'outside', 'not allowed'));
  }
  return { addresses, policies, paths };
}

// --- the walk

interface WalkState {
  steps: PathStep[];
  masquerade: boolean;
  endpoints?: string[];
  end?: 'reject' | 'drop';
  why?: string;
}

function walk(t: CompiledTable, ctx: FamilyContext, dest: Destination, client: Client, source: 'allowed' | 'not allowed' | undefined): ConnectionPath {
  const w: WalkState = { steps: [], masquerade: false };
  if (source !== undefined) firewall(t, w, dest, source === 'allowed');
  if (!w.end) {
    const pod = client === 'pod' && ctx.detector.kind !== 'none';
    w.steps.push({ hook: 'nat prerouting', chain: CHAIN.natPrerouting, rule: t.rule(CHAIN.natPrerouting, `jumps to ${CHAIN.services}`, says(`jump ${CHAIN.services}`)).text, verdict: `jump ${CHAIN.services}` });
    if (!dispatch(t, ctx, w, dest, pod, CHAIN.services)) w.steps.push({ chain: CHAIN.services, rule: '(no rule matches)', verdict: 'return' });
    if (w.endpoints) postrouting(t, w, client);
    else noService(t, w, dest);
  }
  const outcome: Outcome = w.end ?? (w.endpoints ? 'dnat' : 'accept');
  const path: ConnectionPath = {
    kind: dest.kind, ip: dest.ip, port: dest.port, client, steps: w.steps, outcome, masquerade: w.endpoints !== undefined && w.masquerade,
    summary: summary(outcome, w),
  };
  if (source !== undefined) path.source = source;
  if (w.endpoints) path.endpoints = w.endpoints;
  return path;
}

function summary(outcome: Outcome, w: WalkState): string {
  switch (outcome) {
    case 'dnat': {
      const n = w.endpoints!.length;
      return `DNAT to ${n === 1 ? 'its one endpoint' : `1 of ${n} endpoints`}, source ${w.masquerade ? 'masqueraded' : 'kept'}`;
    }
    case 'reject': return `rejected: ${w.why}`;
    case 'drop': return `dropped: ${w.why}`;
    case 'accept': return 'not a Service destination here: accepted without DNAT';
  }
}

/**
 * loadBalancerSourceRanges: filter prerouting runs before the nat hook. The destination is in
 * `firewall-ips`; an allowed source is in one of its ranges in `firewall-allow` (no drop), any other
 * is dropped.
 */
function firewall(t: CompiledTable, w: WalkState, dest: Destination, allowed: boolean): void {
  const ranges = t.elementsUnder(SET.firewallAllow, dest.key).map((el) => String(el.key[el.key.length - 1]));
  if (ranges.length === 0) throw new Error(`explain: ${dest.ip}:${dest.port} is in @${SET.firewallIPs} but has no range in @${SET.firewallAllow}`);
  w.steps.push({ hook: 'filter prerouting', chain: CHAIN.filterPrerouting, rule: t.rule(CHAIN.filterPrerouting, `jumps to ${CHAIN.firewallCheck}`, says(`jump ${CHAIN.firewallCheck}`)).text, verdict: `jump ${CHAIN.firewallCheck}` });
  const rule = t.rule(CHAIN.firewallCheck, `drops what @${SET.firewallAllow} lacks`, (r) => usesSet(SET.firewallIPs)(r) && usesSet(SET.firewallAllow)(r) && r.text.endsWith(' drop')).text;
  if (allowed) {
    w.steps.push({ chain: CHAIN.firewallCheck, rule, verdict: `return: source in ${ranges.join(', ')} (@${SET.firewallAllow})` });
    return;
  }
  w.steps.push({ chain: CHAIN.firewallCheck, rule, verdict: `drop: source in none of ${ranges.join(', ')}` });
  w.end = 'drop';
  w.why = 'source not in loadBalancerSourceRanges';
}

/** `services` and its second stage: the first rule whose set holds the destination. True when one does. */
function dispatch(t: CompiledTable, ctx: FamilyContext, w: WalkState, dest: Destination, pod: boolean, chain: string): boolean {
  for (const r of t.chain(chain).rules) {
    const ref = r.setRefs.find((s) => s.set !== SET.nodePortIPs);
    if (!ref || (ref.key.length === 2) !== (dest.kind === 'NodePort')) continue;
    const el = t.element(ref.set, dest.key);
    if (!el) continue;
    const target = ref.use === 'vmap' ? verdictChain(el) : DISPATCH[ref.set];
    if (!target || (ref.use !== 'vmap' && !r.text.endsWith(`goto ${target}`))) throw new Error(`explain: rule '${r.text}' does not go where explain expects (${target})`);
    w.steps.push({ chain, rule: r.text, verdict: `goto ${target}` });
    if (target === CHAIN.otherServices || target === CHAIN.nodePortServices) {
      if (!dispatch(t, ctx, w, dest, pod, target)) throw new Error(`explain: ${dest.ip}:${dest.port} is in @${ref.set} but in none of ${target}'s sets`);
    } else {
      traffic(t, ctx, w, dest, pod, target);
    }
    return true;
  }
  return false;
}

function verdictChain(el: ElementDef): string | undefined {
  return el.verdict?.kind === 'goto' || el.verdict?.kind === 'jump' ? el.verdict.chain : undefined;
}

function masqueradeStep(t: CompiledTable, ctx: FamilyContext, w: WalkState, chain: string, dest: Destination, pod: boolean, none: string): void {
  const r = t.chain(chain).rules.find(says(`jump ${CHAIN.markMasq}`));
  if (!r) {
    w.steps.push({ chain, rule: `(no masquerade rule: ${none})`, verdict: 'source kept' });
    return;
  }
  // An affinity Service's own rule names its ClusterIP: traffic to its other addresses passes it.
  const toClusterIP = !r.text.includes('daddr ') || dest.kind === 'ClusterIP';
  const fromOutside = ctx.masqueradeAll || !pod || r.text === `jump ${CHAIN.markMasq}`;
  const matches = toClusterIP && fromOutside;
  w.masquerade ||= matches;
  const miss = toClusterIP ? 'no match (a local pod): source kept' : 'no match (not addressed to the ClusterIP)';
  w.steps.push({ chain, rule: r.text, verdict: matches ? `jump ${CHAIN.markMasq}: masquerade` : miss });
}

/** The chain the dispatch went to: a shared traffic chain, or an affinity Service's own. */
function traffic(t: CompiledTable, ctx: FamilyContext, w: WalkState, dest: Destination, pod: boolean, chain: string): void {
  const nodePort = dest.kind === 'NodePort';
  switch (chain) {
    case CHAIN.clusterIPTraffic:
    case CHAIN.externalTraffic:
    case CHAIN.nodePortTraffic: {
      masqueradeStep(t, ctx, w, chain, dest, pod, 'detect-local is None');
      const fam: EndpointMapFamily = nodePort ? 'nodePort' : 'cluster';
      w.steps.push({ chain, rule: t.rule(chain, `goes to ${ENDPOINT_MAPS[fam].select}`, says(`goto ${ENDPOINT_MAPS[fam].select}`)).text, verdict: `goto ${ENDPOINT_MAPS[fam].select}` });
      select(t, w, fam, dest);
      return;
    }
    case CHAIN.externalLocalTraffic:
    case CHAIN.nodePortLocalTraffic:
      localPolicy(t, w, dest, pod, chain, nodePort ? ['nodePort', 'nodePortLocal'] : ['cluster', 'local']);
      return;
    default:
      serviceChain(t, ctx, w, dest, pod, chain);
  }
}

/** Local external policy: pods reach every endpoint, everyone else this node's, with the source kept. */
function localPolicy(t: CompiledTable, w: WalkState, dest: Destination, pod: boolean, chain: string, [all, local]: [EndpointMapFamily, EndpointMapFamily]): void {
  const shortCircuit = t.chain(chain).rules.find(says('short-circuit pod traffic'));
  if (shortCircuit && pod) {
    w.steps.push({ chain, rule: shortCircuit.text, verdict: `jump ${ENDPOINT_MAPS[all].select}: a local pod reaches every endpoint` });
    if (select(t, w, all, dest)) return;
  }
  const last = t.rule(chain, `goes to ${ENDPOINT_MAPS[local].select}`, says(`goto ${ENDPOINT_MAPS[local].select}`));
  w.steps.push({ chain, rule: last.text, verdict: `goto ${ENDPOINT_MAPS[local].select}: this node's endpoints, source kept` });
  select(t, w, local, dest);
}

/**
 * The select chain of `fam`, as the kernel runs it: the count-bit tests the destination's elements
 * pass (goto the chain they name), then its count's rule (count-trie.ts). True when DNATed.
 */
function select(t: CompiledTable, w: WalkState, fam: EndpointMapFamily, dest: Destination): boolean {
  const key = ENDPOINT_MAPS[fam].nodePort ? dest.key.slice(-2) : dest.key;
  const found = t.endpointsOf(fam, key);
  let chain: string = ENDPOINT_MAPS[fam].select;
  affinityStep(t, w, fam, key, chain);
  for (let hops = 0; hops < 64; hops++) {
    const test = t.chain(chain).rules.find((r) => r.setRefs.some((ref) => parseCountBitSetName(ref.set) !== null && t.element(ref.set, key) !== undefined));
    if (!test) return dnatStep(t, w, chain, found);
    const next = /\bgoto (\S+)/.exec(test.text)?.[1];
    if (!next) throw new Error(`explain: the count test in ${chain} goes nowhere: ${test.text}`);
    w.steps.push({ chain, rule: test.text, verdict: `in @${test.setRefs[0].set}: goto ${next}` });
    chain = next;
  }
  throw new Error(`explain: the count tests of ${ENDPOINT_MAPS[fam].select} do not end`);
}

/** Session affinity (compile-base.ts affinityCheckRule): a client's record first, else the pick, recorded after the DNAT. */
function affinityStep(t: CompiledTable, w: WalkState, fam: EndpointMapFamily, key: readonly KeyPart[], chain: string): void {
  const timeout = affinityTimeoutOf(t, fam, key);
  if (timeout === undefined) return;
  const check = t.rule(chain, `looks up @${affinityRecordsName(fam)}`, usesSet(affinityRecordsName(fam)));
  w.steps.push({ chain, rule: check.text,
    verdict: `a client with a record for this destination goes back to the endpoint it names; else on (the pick is recorded in nat postrouting, timeout ${timeout}s)` });
}

function dnatStep(t: CompiledTable, w: WalkState, chain: string, found: ReturnType<CompiledTable['endpointsOf']>): boolean {
  if (!found) {
    w.steps.push({ chain, rule: '(no endpoint map element for this destination)', verdict: 'return: no DNAT' });
    return false;
  }
  const r = t.rule(chain, `picks from @${found.set}`, usesSet(found.set));
  w.steps.push({ chain, rule: r.text, verdict: `dnat to 1 of ${found.count}: ${found.endpoints.join(', ')}` });
  w.endpoints = found.endpoints;
  return true;
}

/**
 * An affinity Service's own chains (IPv6: affinity-chains.ts): `external-` decides
 * masquerade and Local policy, `service-` / `local-` masquerade and pick with a record.
 */
function serviceChain(t: CompiledTable, ctx: FamilyContext, w: WalkState, dest: Destination, pod: boolean, chain: string): void {
  const rules = t.chain(chain).rules;
  const picks = rules.filter(says('update @'));
  if (picks.length > 0) {
    masqueradeStep(t, ctx, w, chain, dest, pod, 'none in this chain');
    const eps = [...new Set(rules.map((r) => /dnat (?:ip6? )?to (\S+)/.exec(r.text)?.[1]).filter((x): x is string => x !== undefined))];
    const timeout = /timeout (\d+)s/.exec(picks[0].text)?.[1] ?? '?';
    const hasRecord = (r: Rule) => r.setRefs.some((s) => s.set === SET.affinity && s.use === 'lookup');
    const recorded = rules.find(hasRecord);
    if (recorded) w.steps.push({ chain, rule: recorded.text, verdict: `a client with a record (timeout ${timeout}s) goes back to its endpoint` });
    w.steps.push({ chain, rule: (picks.find((r) => !hasRecord(r)) ?? picks[0]).text, verdict: `else numgen picks 1 of ${eps.length}, records it: dnat to ${eps.join(', ')}` });
    w.endpoints = eps;
    return;
  }
  for (const r of rules) {
    if (r.text.includes('short-circuit pod traffic')) {
      if (!pod) continue;
    } else if (r.text.startsWith('fib saddr type local')) {
      continue; // neither client is this node itself
    } else if (r.text.includes(`jump ${CHAIN.markMasq}`)) {
      masqueradeStep(t, ctx, w, chain, dest, pod, 'none in this chain');
      continue;
    }
    const next = /goto (\S+)/.exec(r.text)?.[1];
    if (!next) continue;
    w.steps.push({ chain, rule: r.text, verdict: `goto ${next}` });
    serviceChain(t, ctx, w, dest, pod, next);
    return;
  }
  w.steps.push({ chain, rule: '(end of chain)', verdict: 'return: no DNAT' });
}

function postrouting(t: CompiledTable, w: WalkState, client: Client): void {
  if (client === 'pod' && !w.masquerade) {
    const hairpin = t.rule(CHAIN.natPostrouting, `looks up @${SET.hairpin}`, usesSet(SET.hairpin));
    w.steps.push({ hook: 'nat postrouting', chain: CHAIN.natPostrouting, rule: hairpin.text, verdict: 'masquerade only if the pod reached itself' });
  }
  const masq = w.masquerade
    ? t.rule(CHAIN.masquerading, 'masquerades', says('masquerade'))
    : t.rule(CHAIN.masquerading, 'returns unmarked packets', says('return'));
  const hook = client === 'pod' && !w.masquerade ? undefined : 'nat postrouting';
  w.steps.push({ ...(hook ? { hook } : {}), chain: CHAIN.masquerading, rule: masq.text,
    verdict: w.masquerade ? 'masquerade: the endpoint sees this node\'s address' : 'return: the endpoint sees the client\'s address' });
}

/**
 * Not DNATed: the nat base chain goes on to the checks after `services`. A destination without a
 * usable endpoint is rejected, or dropped under a Local policy (`no-endpoint-services` holds both,
 * `no-local-endpoint-services` the latter; the same for NodePorts); a ClusterIP's other port is rejected.
 */
function noService(t: CompiledTable, w: WalkState, dest: Destination): void {
  const checks = CHAIN.noServiceChecks;
  w.steps.push({ chain: CHAIN.natPrerouting, rule: t.rule(CHAIN.natPrerouting, `jumps to ${checks}`, says(`jump ${checks}`)).text, verdict: `jump ${checks}` });
  const into = (chain: string) => w.steps.push({ chain: checks, rule: t.rule(checks, `jumps to ${chain}`, says(`jump ${chain}`)).text, verdict: `jump ${chain}` });
  const nodePort = dest.kind === 'NodePort';
  const [chain, all, drop] = nodePort
    ? [CHAIN.nodePortEndpointsCheck, SET.noEndpointNodePorts, SET.noLocalEndpointNodePorts]
    : [CHAIN.serviceEndpointsCheck, SET.noEndpointServices, SET.noLocalEndpointServices];
  if (t.element(all, dest.key)) {
    into(chain);
    w.steps.push({ chain, rule: t.rule(chain, `looks up @${all}`, usesSet(all)).text, verdict: 'in the set: go on' });
    endpointsVerdict(t, w, dest, chain, drop);
    return;
  }
  if (dest.kind === 'ClusterIP' && t.element(SET.clusterIPs, [dest.ip])) {
    into(CHAIN.clusterIPsCheck);
    w.steps.push({ chain: CHAIN.clusterIPsCheck, rule: t.rule(CHAIN.clusterIPsCheck, `looks up @${SET.clusterIPs}`, usesSet(SET.clusterIPs)).text, verdict: 'reject' });
    w.end = 'reject';
    w.why = 'a ClusterIP on a port no Service has here';
    return;
  }
  w.steps.push({ chain: checks, rule: '(no check matches)', verdict: 'accept: no DNAT' });
}

function endpointsVerdict(t: CompiledTable, w: WalkState, dest: Destination, chain: string, drop: string): void {
  if (t.element(drop, dest.key)) {
    w.steps.push({ chain, rule: t.rule(chain, `looks up @${drop}`, usesSet(drop)).text, verdict: 'drop' });
    w.end = 'drop';
    w.why = 'no endpoint on this node (Local policy)';
    return;
  }
  w.steps.push({ chain, rule: t.rule(chain, `goes to ${CHAIN.reject}`, says(`goto ${CHAIN.reject}`)).text, verdict: `goto ${CHAIN.reject}` });
  w.steps.push({ chain: CHAIN.reject, rule: t.rule(CHAIN.reject, 'rejects', says('reject')).text, verdict: 'reject' });
  w.end = 'reject';
  w.why = 'no endpoints';
}

/** Every chain a path of this explanation names (tests check each exists in the compiled table). */
export function chainsNamed(paths: readonly ConnectionPath[]): string[] {
  return [...new Set(paths.flatMap((p) => p.steps.map((s) => s.chain)))];
}

/** The chains the proxy would have for this ServicePort: the base's (with its endpoint maps) and its own. */
export function compiledChainNames(sp: ServicePort, selection: SelectedEndpoints | undefined, ctx: FamilyContext): string[] {
  return new CompiledTable(ctx, compileService(sp, selection, ctx)).chainNames();
}
