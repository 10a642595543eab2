// Writes desired objects into a native Transaction and remembers, for every op, which
// ServicePort it belongs to: when the kernel refuses an op (NetlinkError.opIndex) the sync knows
// whom to leave out on the retry.
import type { Expr } from '../../native/expressions';
import { parseIp } from '../../native/addresses';
import { registerForWord, REG_1 } from '../../native/expressions';
import { NFT_TYPES, type NftType as NativeNftType } from '../../native/nft-types';
import { Rule, rule as nativeRule, type RuleBuilder } from '../../native/rule-builder';
import { Transaction } from '../../native/transaction';
import type { ChainDef, ElementDef, SetDef } from './desired';
import { chainFingerprint } from './state';
import { renderRule, type IpFamily, type KeyExpr, type RuleDef, type Step } from './rule-steps';

/** Owner of ops that belong to no ServicePort (table, base chains, shared sets). */
export const BASE_OWNER = '';
/** Owner of a batched op that carries several ServicePorts' elements. */
export const MIXED_OWNER = '*';

const FIB_F_SADDR = 1;

/** The native builder refused one ServicePort's object while the transaction was being written. */
export class OwnedBuildError extends Error {
  constructor(readonly owner: string, override readonly cause: Error) {
    super(`${cause.message}`);
  }
}

function owned<T>(owner: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (owner === BASE_OWNER || owner === MIXED_OWNER || !(e instanceof Error)) throw e;
    throw new OwnedBuildError(owner, e);
  }
}

export class TxWriter {
  readonly tx = new Transaction();
  readonly owners: string[] = [];
  /** Chains this transaction adds, per family: they may exist if the commit's outcome is unclear. */
  readonly addedChains: { family: IpFamily; table: string; name: string }[] = [];

  /** Whether each op adds (a ServicePort's new objects) or removes (what the mirror says exists). */
  readonly adds: boolean[] = [];

  private note(owner: string, adds = true): void {
    while (this.owners.length < this.tx.opCount) { this.owners.push(owner); this.adds.push(adds); }
  }

  addTable(family: IpFamily, table: string): void { this.tx.addTable(family, table); this.note(BASE_OWNER); }
  flushTable(family: IpFamily, table: string): void { this.tx.flushTable(family, table); this.note(BASE_OWNER); }
  deleteTable(family: IpFamily, table: string): void { this.tx.deleteTable(family, table); this.note(BASE_OWNER, false); }

  addChain(family: IpFamily, chain: Pick<ChainDef, 'table' | 'name' | 'base'>, owner: string): void {
    owned(owner, () => this.tx.addChain(family, chain.table, chain.base ? { name: chain.name, base: chain.base } : { name: chain.name }));
    this.addedChains.push({ family, table: chain.table, name: chain.name });
    this.note(owner);
  }
  flushChain(family: IpFamily, table: string, name: string, owner: string): void {
    this.tx.flushChain(family, table, name); this.note(owner, false);
  }
  deleteChain(family: IpFamily, table: string, name: string, owner: string): void {
    this.tx.deleteChain(family, table, name); this.note(owner, false);
  }

  /** Adds the chain's rules; returns the chain's fingerprint (see chainFingerprint). */
  addRules(family: IpFamily, chain: ChainDef, owner: string, built?: Rule[]): string {
    const fp = owned(owner, () => {
      const rules = built ?? chain.rules.map((r) => buildRule(r, family));
      for (const r of rules) this.tx.addRule(family, chain.table, chain.name, r);
      return chainFingerprint(chain, rules);
    });
    this.note(owner);
    return fp;
  }

  /** The chain's rules as native Rules (a ServicePort's builder errors are blamed on it). */
  buildRules(family: IpFamily, chain: ChainDef, owner: string): Rule[] {
    return owned(owner, () => chain.rules.map((r) => buildRule(r, family)));
  }

  addSet(family: IpFamily, set: SetDef): void { this.tx.addSet(family, set.table, nativeSetSpec(set)); this.note(BASE_OWNER); }
  declareSet(family: IpFamily, set: SetDef): void { this.tx.declareSet(family, set.table, nativeSetSpec(set)); }
  flushSet(family: IpFamily, table: string, name: string): void { this.tx.flushSet(family, table, name); this.note(BASE_OWNER); }
  deleteSet(family: IpFamily, table: string, name: string): void { this.tx.deleteSet(family, table, name); this.note(BASE_OWNER); }

  /** Elements of one set (all of `els` must name `table` and `set`). */
  addElements(family: IpFamily, table: string, set: string, els: Omit<ElementDef, 'table' | 'set'>[], owner: string): void {
    owned(owner, () => this.tx.addElements(family, table, set, els.map(nativeElement)));
    this.note(owner);
  }
  deleteElements(family: IpFamily, table: string, set: string, els: Omit<ElementDef, 'table' | 'set'>[], owner: string): void {
    this.tx.deleteElements(family, table, set, els.map(nativeElement));
    this.note(owner, false);
  }
}

function nativeElement(e: Omit<ElementDef, 'table' | 'set'>) {
  return e.verdict ? { key: e.key, verdict: e.verdict } : e.data ? { key: e.key, data: e.data } : { key: e.key };
}

export function nativeSetSpec(s: SetDef) {
  return {
    name: s.name, key: s.key, ...(s.map ? { map: s.map } : {}), ...(s.typeof ? { typeof: s.typeof } : {}), ...(s.interval ? { interval: true } : {}),
    ...(s.timeout ? { timeout: true } : {}), ...(s.dynamic ? { dynamic: true } : {}), ...(s.size ? { size: s.size } : {}),
    ...(s.comment ? { comment: s.comment } : {}),
  };
}

const hasConstant = (parts: readonly KeyExpr[]) => parts.some((p) => typeof p === 'object' && !('numgen' in p));

/** Replays the steps on the native builder; steps the builder lacks are patched in afterwards. */
export function buildRule(steps: RuleDef, family: IpFamily): Rule {
  const b = nativeRule(family);
  let constantKey: Step | undefined;
  let fibSaddr = false;
  for (const s of steps) {
    if ((s.op === 'lookup' || s.op === 'dynsetUpdate') && hasConstant(s.parts)) { constantKey = s; continue; }
    if (s.op === 'fibSaddrLocal' && typeof (b as any).fibSaddrLocal !== 'function') fibSaddr = true;
    applyStep(b, s);
  }
  let built = constantKey && steps.length === 1 ? null : b.build();
  if (fibSaddr && built) built = patchFibSaddr(built);
  if (constantKey) built = withConstantKeyLookup(built, constantKey as Extract<Step, { op: 'lookup' | 'dynsetUpdate' }>, family, steps);
  return built!;
}

function applyStep(b: RuleBuilder, s: Step): void {
  switch (s.op) {
    case 'daddr': b.daddr(s.addr, s.negate); return;
    case 'saddr': b.saddr(s.addr, s.negate); return;
    case 'daddrInSet': b.daddrInSet(s.set, s.negate); return;
    case 'saddrInSet': b.saddrInSet(s.set, s.negate); return;
    case 'l4proto': b.l4proto(s.proto); return;
    case 'dport': b.dport(s.port); return;
    case 'fibDaddrLocal': b.fibDaddrLocal(s.negate); return;
    case 'fibSaddrLocal': {
      const f = (b as any).fibSaddrLocal;
      if (typeof f === 'function') f.call(b, s.negate); else b.fibDaddrLocal(s.negate);
      return;
    }
    case 'ctStateNew': b.ctState(['new']); return;
    case 'ctStatusDnat': b.ctStatusDnat(); return;
    case 'iifname': b.iifname(s.name, s.negate); return;
    case 'iifnamePrefix': b.iifnamePrefix(s.name, s.negate); return;
    case 'markAnd': b.markAnd(s.mask, s.value, s.negate); return;
    case 'lookup': b.lookup(s.parts as any, s.set, s.negate); return;
    case 'vmap': b.vmap(s.parts as any, s.map); return;
    case 'numgenMod': b.numgenMod(s.mod, s.equals); return;
    case 'markOr': b.markOr(s.bits); return;
    case 'markXor': b.markXor(s.bits); return;
    case 'dynsetUpdate': b.dynsetUpdate(s.parts as any, s.set, s.timeoutSeconds); return;
    case 'dnat': b.dnat(s.addr, s.port); return;
    case 'dnatMap': b.dnatMap(s.parts as any, s.map); return;
    case 'masquerade': b.masquerade(s.fullyRandom); return;
    case 'reject': b.reject(); return;
    case 'verdict': b.verdict(s.verdict); return;
    case 'comment': b.comment(s.text); return;
  }
}

/** The native builder (for now) has only `fib daddr`; the expression differs by one flag. */
function patchFibSaddr(r: Rule): Rule {
  const exprs = r.exprs.map((e): Expr => (e.type === 'fib' ? { ...e, flags: FIB_F_SADDR } : e));
  return new Rule(r.family, r.text.replaceAll('fib daddr type', 'fib saddr type'), exprs, r.setRefs, r.comment, r.userdata);
}

function addrBytes(ip: string, family: IpFamily): Uint8Array {
  return Uint8Array.from(parseIp(ip, 'ip', family === 'ip' ? 4 : 6).bytes);
}
/**
 * A lookup or dynset whose key mixes packet fields and constants (the shared affinity set:
 * client . ClusterIP . port . endpoint IP . endpoint port). The kernel takes constants as
 * `immediate` loads into the key's registers; the native builder refuses them because nft
 * 1.0.6 cannot parse such text back, so this builds those expressions itself, the way nft
 * lays out a concatenation (every field word-aligned, partial words zero-padded by the kernel).
 */
function withConstantKeyLookup(rest: Rule | null, s: Extract<Step, { op: 'lookup' | 'dynsetUpdate' }>, family: IpFamily, steps: RuleDef): Rule {
  const addr: NativeNftType = family === 'ip' ? 'ipv4_addr' : 'ipv6_addr';
  const exprs: Expr[] = [];
  const key: NativeNftType[] = [];
  let word = 0;
  for (const p of s.parts) {
    const reg = registerForWord(word);
    let t: NativeNftType;
    if (p === 'saddr' || p === 'daddr') {
      t = addr;
      const off = family === 'ip' ? (p === 'saddr' ? 12 : 16) : (p === 'saddr' ? 8 : 24);
      exprs.push({ type: 'payload', base: 1, offset: off, len: NFT_TYPES[t].len, dreg: reg });
    } else if (p === 'dport' || p === 'sport') {
      t = 'inet_service';
      exprs.push({ type: 'payload', base: 2, offset: p === 'dport' ? 2 : 0, len: 2, dreg: reg });
    } else if (typeof p === 'object' && 'ip' in p) {
      t = addr;
      exprs.push({ type: 'immediate', dreg: reg, data: addrBytes(p.ip, family) });
    } else if (typeof p === 'object' && 'port' in p) {
      t = 'inet_service';
      exprs.push({ type: 'immediate', dreg: reg, data: Uint8Array.of(p.port >> 8, p.port & 0xff) });
    } else {
      throw new TypeError(`parts: ${JSON.stringify(p)} is not supported in a key with constants`);
    }
    key.push(t);
    word += Math.ceil(NFT_TYPES[t].len / 4);
  }
  if (s.op === 'lookup') exprs.push({ type: 'lookup', sreg: REG_1, set: s.set, invert: !!s.negate });
  else exprs.push({ type: 'dynset', op: 1, set: s.set, sregKey: REG_1, sregData: 0, timeoutMs: s.timeoutSeconds * 1000, flags: 0 });
  const setRef = { set: s.set, key, use: (s.op === 'lookup' ? 'lookup' : 'dynset') as 'lookup' | 'dynset', arg: 'set' };
  const text = renderRule(steps, family);
  return new Rule(family, text, [...exprs, ...(rest?.exprs ?? [])], [setRef, ...(rest?.setRefs ?? [])], rest?.comment, rest?.userdata);
}
