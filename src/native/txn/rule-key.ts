// Key expressions of lookups, verdict maps, dnat maps and dynsets: each part loaded into its own
// word-aligned field of the register file, in the registers and byte order nft uses.
import { IpVersion, parseIp } from '../wire/addresses';
import { checkPort, protoNumber } from './elements';
import { Bytes, Expr, registerForWord } from './expressions';
import { CT_DIR_ORIGINAL, CT_DIR_REPLY, CT_KEY, META, NFT_TYPES, NftType, NUMGEN_RANDOM, PAYLOAD_BASE } from './nft-types';
import type { AddrField, KeyExpr, RuleFamily } from './rule';

export const ADDR_FIELD: Record<IpVersion, Record<AddrField, { offset: number; len: number }>> = {
  4: { saddr: { offset: 12, len: 4 }, daddr: { offset: 16, len: 4 } },
  6: { saddr: { offset: 8, len: 16 }, daddr: { offset: 24, len: 16 } },
};
const MAX_NUMGEN_MOD = 2 ** 31;

export const ipWord = (v: IpVersion) => (v === 4 ? 'ip' : 'ip6');

/** `endWord`: the register word after the key's last part (where a dynset's value goes). */
export interface Loaded { exprs: Expr[]; key: NftType[]; text: string; endWord: number }
/**
 * Which key parts a statement takes. Constants ({ip}, {port}, {proto}) go where a key is matched
 * against or written into a set (the shared affinity set's key holds the Service and endpoint);
 * numgen where a key is only matched: nft stores no numgen in a dynset.
 *
 * How a constant is loaded depends on the statement, as nft's own text needs it to be:
 * - 'immediate' (a dynset's key): the value itself, `ip saddr . 10.0.0.1 . 80`; nft types it by
 *   the set's key, lists it and reads it back.
 * - 'typed' (a lookup's key): nft 1.0.6 lists an immediate on the left of a lookup as `0x0a000001
 *   [invalid type]` and cannot parse one there at all, so the constant is written as a typed
 *   expression that evaluates to it: a field of its type with every bit masked off, then the
 *   value or'ed in (`ip daddr & 10.0.0.1 | 10.0.0.1`, `th dport & 80 | 80`, `meta l4proto &
 *   tcp | tcp`, `ct original ip6 daddr & fd00::1 | fd00::1`): a load and one bitwise with mask 0
 *   and xor the value, exactly what nft emits for that text (nft-oracle.test.ts). The field's
 *   own value never matters (masked off); the register gets the same bytes an immediate would
 *   write, so the set's elements are the same. In a concatenation nft lists a masked payload's
 *   or'ed value in hex (`ip daddr & 10.0.0.1 | 0xa000001`), which it reads back as an IPv4
 *   address but not as an IPv6 one, so IPv6 addresses use conntrack's original destination
 *   (typed, listed as an address); IPv4 ones keep the payload, which costs a connection less:
 *   the ct load is a call of its own, about 0.03 µs per lookup rule passed (docs/nftables-ruleset.md).
 */
export type ConstantLoad = 'immediate' | 'typed';
export interface KeyAllows { constants: ConstantLoad | false; numgen: boolean }
export const MATCH_KEY: KeyAllows = { constants: 'typed', numgen: true };
export const MAP_KEY: KeyAllows = { constants: false, numgen: true };
export const DYNSET_KEY: KeyAllows = { constants: 'immediate', numgen: false };

/** What a key needs of the rule it is in: its family, and the IP version its address parts match. */
export interface KeyNet {
  family: RuleFamily;
  /** The version of an address part that names none ('saddr'), or a TypeError. */
  familyVersion(arg: string): IpVersion;
  /** The expressions that restrict the rule to this version (inet: meta nfproto, once). */
  netVersion(version: IpVersion, arg: string): Expr[];
}

/** Conntrack key parts: which tuple, which field, and whether it is an address (of the part's IP version). */
const CT_PARTS: Record<string, { dir: number; addr?: 'saddr' | 'daddr'; port?: number; text: string }> = {
  'ct original daddr': { dir: CT_DIR_ORIGINAL, addr: 'daddr', text: 'ct original' },
  'ct reply saddr': { dir: CT_DIR_REPLY, addr: 'saddr', text: 'ct reply' },
  'ct original proto-dst': { dir: CT_DIR_ORIGINAL, port: CT_KEY.protoDst, text: 'ct original proto-dst' },
  'ct reply proto-src': { dir: CT_DIR_REPLY, port: CT_KEY.protoSrc, text: 'ct reply proto-src' },
};

function ctPart(net: KeyNet, p: string, reg: number, a: string): { t: NftType; text: string; load: Expr; deps: Expr[] } {
  const c = CT_PARTS[p];
  if (c.port !== undefined) return { t: 'inet_service', text: c.text, load: { type: 'ct', set: false, key: c.port, ctDir: c.dir, reg }, deps: [] };
  const version = net.familyVersion(a);
  const key = version === 4 ? (c.addr === 'saddr' ? CT_KEY.srcIp : CT_KEY.dstIp) : (c.addr === 'saddr' ? CT_KEY.srcIp6 : CT_KEY.dstIp6);
  return {
    t: version === 4 ? 'ipv4_addr' : 'ipv6_addr',
    text: `${c.text} ${ipWord(version)} ${c.addr}`,
    load: { type: 'ct', set: false, key, ctDir: c.dir, reg },
    deps: net.netVersion(version, a),
  };
}

/** Whether a key names a conntrack port, which nft types only after the rule's `meta l4proto`. */
export function hasCtPort(parts: readonly KeyExpr[]): boolean {
  return parts.some((p) => p === 'ct original proto-dst' || p === 'ct reply proto-src');
}

/** `startWord`: the register word the first part goes to (a dynset's value follows its key). */
export function loadKeyParts(net: KeyNet, parts: KeyExpr[], arg: string, allow: KeyAllows, startWord = 0): Loaded {
  if (!Array.isArray(parts) || parts.length === 0) throw new TypeError(`${arg}: expected a non-empty array of key expressions`);
  if (parts.length > 5) throw new RangeError(`${arg}: at most 5 key parts`);
  const exprs: Expr[] = [];
  const key: NftType[] = [];
  const texts: string[] = [];
  let word = startWord;
  const loads: Expr[] = [];
  for (const [i, p] of parts.entries()) {
    const a = `${arg}[${i}]`;
    const reg = registerForWord(word);
    let t: NftType;
    if (p === 'l4proto') {
      t = 'inet_proto';
      texts.push('meta l4proto');
      loads.push({ type: 'meta', set: false, key: META.l4proto, reg });
    } else if (p === 'dport' || p === 'sport') {
      t = 'inet_service';
      texts.push(`th ${p}`);
      loads.push({ type: 'payload', base: PAYLOAD_BASE.transport, offset: p === 'dport' ? 2 : 0, len: 2, dreg: reg });
    } else if (typeof p === 'string' && p in CT_PARTS) {
      const c = ctPart(net, p, reg, a);
      exprs.push(...c.deps);
      t = c.t;
      texts.push(c.text);
      loads.push(c.load);
    } else if (typeof p === 'string' && /^(ip6? )?[sd]addr$/.test(p)) {
      const field = p.slice(-5) as AddrField;
      const version: IpVersion = p.startsWith('ip6 ') ? 6 : p.startsWith('ip ') ? 4 : net.familyVersion(a);
      exprs.push(...net.netVersion(version, a));
      t = version === 4 ? 'ipv4_addr' : 'ipv6_addr';
      texts.push(`${ipWord(version)} ${field}`);
      const { offset, len } = ADDR_FIELD[version][field];
      loads.push({ type: 'payload', base: PAYLOAD_BASE.network, offset, len, dreg: reg });
    } else if (typeof p === 'object' && p !== null && 'numgen' in p) {
      if (!allow.numgen) throw new TypeError(`${a}: numgen key parts are only allowed in lookup, vmap and dnatMap`);
      const mod = numgenModulus((p as { numgen: unknown }).numgen, `${a}.numgen`);
      t = 'integer';
      texts.push(`numgen random mod ${mod}`);
      loads.push({ type: 'numgen', dreg: reg, mod, ngType: NUMGEN_RANDOM, offset: 0 });
    } else if (typeof p === 'object' && p !== null) {
      if (!allow.constants) throw new TypeError(`${a}: constant key parts are only allowed in lookup and dynsetUpdate`);
      const c = constantPart(net.family, p, a);
      t = c.type;
      if (allow.constants === 'immediate') {
        texts.push(c.text);
        loads.push({ type: 'immediate', dreg: reg, data: c.data });
      } else {
        const typed = typedConstant(net, c, reg, a);
        exprs.push(...typed.deps);
        texts.push(typed.text);
        loads.push(typed.load, { type: 'bitwise', sreg: reg, dreg: reg, len: c.data.length, mask: new Array(c.data.length).fill(0), xor: c.data });
      }
    } else {
      throw new TypeError(`${a}: '${String(p)}' is not a key expression`);
    }
    key.push(t);
    word += Math.ceil(NFT_TYPES[t].len / 4);
    if (word > 16) throw new RangeError(`${arg}: the key does not fit the 64-byte register file`);
  }
  return { exprs: [...exprs, ...loads], key, text: texts.join(' . '), endWord: word };
}

function numgenModulus(mod: unknown, arg: string): number {
  if (typeof mod !== 'number' || !Number.isInteger(mod)) throw new TypeError(`${arg}: expected an integer modulus`);
  if (mod < 1 || mod > MAX_NUMGEN_MOD) throw new RangeError(`${arg}: ${mod} is outside 1..${MAX_NUMGEN_MOD}`);
  return mod;
}

/** A constant's typed carrier (see KeyAllows): the field loaded before the bitwise, its text, and what it needs in inet. */
function typedConstant(net: KeyNet, c: Constant, reg: number, arg: string): { load: Expr; text: string; deps: Expr[] } {
  const value = `${c.text} | ${c.text}`;
  if (c.type === 'ipv4_addr') {
    const { offset, len } = ADDR_FIELD[4].daddr;
    return { load: { type: 'payload', base: PAYLOAD_BASE.network, offset, len, dreg: reg }, text: `ip daddr & ${value}`, deps: net.netVersion(4, arg) };
  }
  if (c.type === 'ipv6_addr') {
    return {
      load: { type: 'ct', set: false, key: CT_KEY.dstIp6, ctDir: CT_DIR_ORIGINAL, reg },
      text: `ct original ip6 daddr & ${value}`,
      deps: net.netVersion(6, arg),
    };
  }
  if (c.type === 'inet_service') {
    return { load: { type: 'payload', base: PAYLOAD_BASE.transport, offset: 2, len: 2, dreg: reg }, text: `th dport & ${value}`, deps: [] };
  }
  return { load: { type: 'meta', set: false, key: META.l4proto, reg }, text: `meta l4proto & ${value}`, deps: [] };
}

interface Constant { type: NftType; text: string; data: Bytes }

function constantPart(family: RuleFamily, p: object, arg: string): Constant {
  if ('ip' in p) {
    const want = family === 'ip' ? 4 : family === 'ip6' ? 6 : undefined;
    const { version, bytes } = parseIp((p as { ip: unknown }).ip, `${arg}.ip`, want);
    return { type: version === 4 ? 'ipv4_addr' : 'ipv6_addr', text: (p as { ip: string }).ip, data: bytes };
  }
  if ('port' in p) {
    const port = checkPort((p as { port: unknown }).port, `${arg}.port`);
    return { type: 'inet_service', text: String(port), data: [port >> 8, port & 0xff] };
  }
  if ('proto' in p) {
    const proto = (p as { proto: unknown }).proto;
    const n = protoNumber(proto, `${arg}.proto`);
    if (typeof proto !== 'string') throw new TypeError(`${arg}.proto: expected 'tcp', 'udp' or 'sctp'`);
    return { type: 'inet_proto', text: proto, data: [n] };
  }
  throw new TypeError(`${arg}: expected { ip }, { port } or { proto }`);
}
