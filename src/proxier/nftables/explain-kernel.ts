// `explain`'s kernel check for one ServicePort: each element it owns (or shares) is looked up by
// key in its set, and each chain of its own is read by name, never a listing of the table; each is
// compared with what the proxier would program now (compileService's objects with the current
// context) and marked as expected, differs or missing.
import { NetlinkError, type ChainRule, type ElementLookup, type ExpectedChain, type KeyPart, type Nft, type SetSpec, type Verdict } from '../../native';
import { decodeRange, decodeValue, tryDecodeValue } from '../../native/txn/element-decode';
import { elementText, encodeElements, encodeKey } from '../../native/txn/elements';
import { mapData } from '../../native/txn/set-spec';
import { setDefFor } from './compile-base';
import type { FamilyContext } from './context';
import type { ChainDef, ElementDef, ServiceObjects } from './desired';
import { TABLE } from './names';

export type KernelObjectStatus = 'as expected' | 'differs' | 'missing';

/**
 * One kernel object of a ServicePort. `key`: an element's key as nft text, or the chain's name;
 * `expected`/`kernel`: the element (`key : data`, `key : goto chain`) or the chain's rules, one a
 * line, as nft text; `kernel` is absent when the object is missing. A kernel rule that is not the
 * expected one is shown by its handle and expression names (the kernel gives no nft text).
 */
export interface KernelObjectCheck {
  kind: 'element' | 'chain';
  set?: string;
  chain?: string;
  key: string;
  expected: string;
  kernel?: string;
  status: KernelObjectStatus;
}

/** What the check reads through: Nft, or FakeNft in tests without root. */
export type KernelReader = Pick<Nft, 'getElements' | 'dumpChain'>;

/** A value re-read from its own encoding: the text the kernel's bytes decode to, so texts compare exactly. */
function canonical(set: string, types: SetSpec['key'], parts: readonly KeyPart[]): KeyPart[] {
  return decodeValue(types, Buffer.from(encodeKey({ name: set, key: types }, parts, 'value')));
}

/** A concatenated interval set's elements are ranges (firewall-allow): start and end, as the kernel holds them. */
const hasRanges = (spec: SetSpec): boolean => !!spec.interval && spec.key.length > 1;

/** The key's text as the kernel's bytes decode to it; a range's from its start and end. */
function canonicalKey(spec: SetSpec, key: readonly KeyPart[]): KeyPart[] {
  if (!hasRanges(spec)) return canonical(spec.name, spec.key, key);
  const [el] = encodeElements(spec, [{ key: [...key] }], 'value', { firstAdd: false, add: true });
  return decodeRange(spec.key, Buffer.from(el.key), Buffer.from(el.keyEnd!));
}

function kernelKey(spec: SetSpec, found: NonNullable<ElementLookup['element']>): KeyPart[] | undefined {
  if (!hasRanges(spec)) return tryDecodeValue(spec.key, found.key);
  try {
    return decodeRange(spec.key, found.key, found.keyEnd ?? found.key);
  } catch {
    return undefined;
  }
}

function expectedText(spec: SetSpec, def: ElementDef): string {
  const data = mapData(spec);
  return elementText(spec, {
    key: canonicalKey(spec, def.key),
    ...(def.verdict ? { verdict: def.verdict } : {}),
    ...(data && def.data ? { data: canonical(spec.name, data, def.data) } : {}),
  });
}

function hex(b: Buffer): string {
  return `0x${b.toString('hex')}`;
}

/** The kernel's element as nft text; bytes that do not fit the set's types are shown as hex. */
function kernelText(spec: SetSpec, found: NonNullable<ElementLookup['element']>): string {
  const key = kernelKey(spec, found);
  const dataTypes = mapData(spec);
  const data = dataTypes && found.data ? tryDecodeValue(dataTypes, found.data) : undefined;
  if (!key || (dataTypes && found.data && !data)) {
    return `${hex(found.key)}${found.data ? ` : ${hex(found.data)}` : ''}`;
  }
  const verdict: Verdict | undefined = found.verdict;
  return elementText(spec, { key, ...(verdict ? { verdict } : {}), ...(data ? { data } : {}) });
}

const isEnoent = (e: unknown): boolean => e instanceof NetlinkError && e.code === 'ENOENT';

/** A set (or table) that does not exist holds none of the elements: each is missing. */
async function lookUp(nft: KernelReader, family: FamilyContext['family'], spec: SetSpec, defs: readonly ElementDef[]): Promise<ElementLookup[]> {
  try {
    return await nft.getElements(family, TABLE, spec, defs.map((d) => d.key));
  } catch (e) {
    if (isEnoent(e)) return defs.map((d) => ({ key: d.key }));
    throw e;
  }
}

async function checkSet(nft: KernelReader, family: FamilyContext['family'], spec: SetSpec, defs: readonly ElementDef[]): Promise<KernelObjectCheck[]> {
  const found = await lookUp(nft, family, spec, defs);
  return defs.map((def, i) => {
    const expected = expectedText(spec, def);
    const key = elementText(spec, { key: canonicalKey(spec, def.key) });
    const el = found[i].element;
    if (!el) return { kind: 'element', set: spec.name, key, expected, status: 'missing' };
    const kernel = kernelText(spec, el);
    return { kind: 'element', set: spec.name, key, expected, kernel, status: kernel === expected ? 'as expected' : 'differs' };
  });
}

/** The specs of the sets a chain's rules refer to (the addon encodes the expected rules with them). */
function expectedChain(ctx: FamilyContext, chain: ChainDef): ExpectedChain {
  const names = new Set(chain.rules.flatMap((r) => r.setRefs.map((ref) => ref.set)));
  return { rules: chain.rules, sets: [...names].map((n) => setDefFor(ctx, n)) };
}

function kernelRulesText(chain: ChainDef, rules: readonly ChainRule[]): string {
  return rules.map((r, i) => (r.matches && chain.rules[i] ? chain.rules[i].text : `[handle ${r.handle}: ${r.exprs.join(' ')}]`)).join('\n');
}

async function checkChain(nft: KernelReader, ctx: FamilyContext, chain: ChainDef): Promise<KernelObjectCheck> {
  const base = { kind: 'chain' as const, chain: chain.name, key: chain.name, expected: chain.rules.map((r) => r.text).join('\n') };
  let rules: ChainRule[];
  try {
    rules = await nft.dumpChain(ctx.family, TABLE, chain.name, expectedChain(ctx, chain));
  } catch (e) {
    if (isEnoent(e)) return { ...base, status: 'missing' };
    throw e;
  }
  const same = rules.length === chain.rules.length && rules.every((r) => r.matches === true);
  return { ...base, kernel: kernelRulesText(chain, rules), status: same ? 'as expected' : 'differs' };
}

/** The ServicePort's elements grouped by set, each element once, in the order compileService gave them. */
function bySet(elements: readonly ElementDef[]): Map<string, ElementDef[]> {
  const out = new Map<string, ElementDef[]>();
  const seen = new Set<string>();
  for (const e of elements) {
    const id = `${e.set}\u0000${e.key.join('\u0000')}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.set(e.set, [...(out.get(e.set) ?? []), e]);
  }
  return out;
}

/**
 * Every element and chain of one ServicePort (`objs`: compileService(sp, endpoints, ctx)) checked
 * against the kernel of `ctx.family`: elements first, set by set, then the chains. An element of a
 * set that does not exist (an endpoint map of a count not programmed yet, no table at all) is
 * missing, as is a chain that does not exist; any other kernel error rejects.
 */
export async function checkServicePortInKernel(nft: KernelReader, objs: ServiceObjects, ctx: FamilyContext): Promise<KernelObjectCheck[]> {
  const out: KernelObjectCheck[] = [];
  for (const [set, defs] of bySet(objs.elements)) out.push(...await checkSet(nft, ctx.family, setDefFor(ctx, set), defs));
  for (const chain of objs.chains) out.push(await checkChain(nft, ctx, chain));
  return out;
}
