// The fluent rule builder: each call appends the low-level expressions (registers chosen the way
// nft chooses them) and the nft text a person would write, so the netlink commit and
// toNftScript() describe the same rule.
import { IpVersion, parseCidr, parseIp, prefixMask } from '../wire/addresses';
import { checkPort, checkU32, hostU32, protoNumber, verdictText } from './elements';
import { Expr, REG_1, REG_2, REG_VERDICT, registerForWord } from './expressions';
import { checkIfname, checkName, checkSetName } from './names';
import {
  CMP_OP, CT_KEY, CT_STATE_BIT, CT_STATUS_CONFIRMED, CT_STATUS_DNAT, CtState, DYNSET_OP, FAMILY_CODE, FIB_F_DADDR, FIB_F_SADDR, FIB_RESULT_ADDRTYPE,
  ICMP_PORT_UNREACH, ICMPV6_PORT_UNREACH, ICMPX_PORT_UNREACH, L4Proto, META, NAT_RANGE, NAT_TYPE,
  NFT_TYPES, NUMGEN_RANDOM, PAYLOAD_BASE, REJECT_TYPE, RTN_LOCAL, Verdict, VERDICT_CODE, wordAlign,
} from './nft-types';
import { checkTimeoutSeconds } from './set-spec';
import { checkVerdict } from './verdicts';

import { Rule, type AddrField, type KeyExpr, type RuleFamily, type SetRef } from './rule';
import { ADDR_FIELD, DYNSET_KEY, hasCtPort, ipWord, loadKeyParts, MAP_KEY, MATCH_KEY, type KeyAllows, type Loaded } from './rule-key';

export { Rule, natForMapData } from './rule';
export type { AddrField, KeyExpr, RuleFamily, SetRef } from './rule';

const CT_STATES = Object.keys(CT_STATE_BIT) as (keyof typeof CT_STATE_BIT)[];
const UDATA_RULE_COMMENT = 0;
const MAX_COMMENT = 128;

const hex = (v: number) => `0x${(v >>> 0).toString(16)}`;
const cmpOp = (negate?: boolean) => (negate ? CMP_OP.neq : CMP_OP.eq);
const bang = (negate?: boolean) => (negate ? '!= ' : '');

export class RuleBuilder {
  private readonly exprs: Expr[] = [];
  private readonly texts: string[] = [];
  private readonly setRefs: SetRef[] = [];
  private l4?: L4Proto;
  private ipv?: IpVersion;
  private ended?: string;
  private commentText?: string;
  private built = false;

  constructor(readonly family: RuleFamily) {
    if (family !== 'ip' && family !== 'ip6' && family !== 'inet') {
      throw new TypeError(`family: expected 'ip', 'ip6' or 'inet', got '${String(family)}'`);
    }
  }

  private push(text: string, ...exprs: Expr[]): this {
    if (this.built) throw new RangeError(`${text}: this builder already built its rule; start a new rule()`);
    if (this.ended) throw new RangeError(`${text}: nothing may follow '${this.ended}' in a rule`);
    this.exprs.push(...exprs);
    if (text) this.texts.push(text);
    return this;
  }

  /** The IP version a match may use in this family; in inet, nft adds `meta nfproto` once per rule. */
  private netVersion(version: IpVersion, arg: string): Expr[] {
    if (this.family === 'ip' && version !== 4) throw new RangeError(`${arg}: an ip rule cannot match IPv6`);
    if (this.family === 'ip6' && version !== 6) throw new RangeError(`${arg}: an ip6 rule cannot match IPv4`);
    if (this.family !== 'inet') return [];
    if (this.ipv === version) return [];
    if (this.ipv) throw new RangeError(`${arg}: this rule already matches IPv${this.ipv} only`);
    this.ipv = version;
    return [
      { type: 'meta', set: false, key: META.nfproto, reg: REG_1 },
      { type: 'cmp', sreg: REG_1, op: CMP_OP.eq, data: [version === 4 ? 2 : 10] },
    ];
  }

  private familyVersion(arg: string): IpVersion {
    if (this.family === 'ip') return 4;
    if (this.family === 'ip6') return 6;
    if (this.ipv) return this.ipv;
    throw new TypeError(`${arg}: in an inet rule say which IP version first (nfproto(), or 'ip daddr' / 'ip6 daddr')`);
  }

  /** meta nfproto ipv4|ipv6: restricts an inet rule to one IP version. */
  nfproto(version: 'ipv4' | 'ipv6'): this {
    if (version !== 'ipv4' && version !== 'ipv6') throw new TypeError(`version: expected 'ipv4' or 'ipv6', got '${String(version)}'`);
    const v: IpVersion = version === 'ipv4' ? 4 : 6;
    if (this.family !== 'inet') throw new RangeError('version: nfproto() is only for inet rules');
    if (this.ipv) throw new RangeError(`version: this rule already matches IPv${this.ipv}`);
    this.ipv = v;
    return this.push(`meta nfproto ${version}`,
      { type: 'meta', set: false, key: META.nfproto, reg: REG_1 },
      { type: 'cmp', sreg: REG_1, op: CMP_OP.eq, data: [v === 4 ? 2 : 10] });
  }

  private addrMatch(field: AddrField, addrOrCidr: string, negate?: boolean): this {
    const want = this.family === 'ip' ? 4 : this.family === 'ip6' ? 6 : undefined;
    const c = parseCidr(addrOrCidr, 'addrOrCidr', want);
    const dep = this.netVersion(c.version, 'addrOrCidr');
    const { offset, len } = ADDR_FIELD[c.version][field];
    const full = len * 8;
    const text = `${ipWord(c.version)} ${field} ${bang(negate)}${c.text}`;
    // Like nft: a byte-aligned prefix loads only its bytes; any other prefix masks the whole address.
    if (c.prefix === full || (c.prefix % 8 === 0 && c.prefix > 0)) {
      const n = c.prefix / 8;
      return this.push(text, ...dep,
        { type: 'payload', base: PAYLOAD_BASE.network, offset, len: n, dreg: REG_1 },
        { type: 'cmp', sreg: REG_1, op: cmpOp(negate), data: c.bytes.slice(0, n) });
    }
    return this.push(text, ...dep,
      { type: 'payload', base: PAYLOAD_BASE.network, offset, len, dreg: REG_1 },
      { type: 'bitwise', sreg: REG_1, dreg: REG_1, len, mask: prefixMask(len, c.prefix), xor: Array(len).fill(0) },
      { type: 'cmp', sreg: REG_1, op: cmpOp(negate), data: c.bytes });
  }

  daddr(addrOrCidr: string, negate?: boolean): this { return this.addrMatch('daddr', addrOrCidr, negate); }
  saddr(addrOrCidr: string, negate?: boolean): this { return this.addrMatch('saddr', addrOrCidr, negate); }

  daddrInSet(set: string, negate?: boolean): this { return this.lookup([this.addrKey('daddr')], set, negate); }
  saddrInSet(set: string, negate?: boolean): this { return this.lookup([this.addrKey('saddr')], set, negate); }

  private addrKey(field: AddrField): KeyExpr {
    return `${ipWord(this.familyVersion(field === 'daddr' ? 'daddrInSet' : 'saddrInSet'))} ${field}` as KeyExpr;
  }

  l4proto(proto: L4Proto): this {
    const n = protoNumber(proto, 'proto');
    if (typeof proto !== 'string') throw new TypeError(`proto: expected 'tcp', 'udp' or 'sctp'`);
    if (this.l4 && this.l4 !== proto) throw new RangeError(`proto: this rule already matches ${this.l4}`);
    this.l4 = proto;
    return this.push(`meta l4proto ${proto}`,
      { type: 'meta', set: false, key: META.l4proto, reg: REG_1 },
      { type: 'cmp', sreg: REG_1, op: CMP_OP.eq, data: [n] });
  }

  dport(port: number): this { return this.portMatch('dport', port); }
  sport(port: number): this { return this.portMatch('sport', port); }

  private portMatch(field: 'dport' | 'sport', port: number): this {
    const p = checkPort(port, 'port');
    return this.push(`th ${field} ${p}`,
      { type: 'payload', base: PAYLOAD_BASE.transport, offset: field === 'dport' ? 2 : 0, len: 2, dreg: REG_1 },
      { type: 'cmp', sreg: REG_1, op: CMP_OP.eq, data: [p >> 8, p & 0xff] });
  }

  private fibLocal(field: 'saddr' | 'daddr', negate?: boolean): this {
    return this.push(`fib ${field} type ${bang(negate)}local`,
      { type: 'fib', dreg: REG_1, result: FIB_RESULT_ADDRTYPE, flags: field === 'daddr' ? FIB_F_DADDR : FIB_F_SADDR },
      { type: 'cmp', sreg: REG_1, op: cmpOp(negate), data: hostU32(RTN_LOCAL) });
  }

  fibDaddrLocal(negate?: boolean): this { return this.fibLocal('daddr', negate); }
  fibSaddrLocal(negate?: boolean): this { return this.fibLocal('saddr', negate); }

  ctState(states: CtState[], negate?: boolean): this {
    if (!Array.isArray(states) || states.length === 0) throw new TypeError('states: expected a non-empty array of ct states');
    let bits = 0;
    for (const [i, s] of states.entries()) {
      if (!CT_STATES.includes(s as keyof typeof CT_STATE_BIT) || s === ('untracked' as string)) {
        throw new RangeError(`states[${i}]: '${String(s)}' is not one of new, established, related, invalid`);
      }
      bits |= CT_STATE_BIT[s];
    }
    const load: Expr = { type: 'ct', set: false, key: CT_KEY.state, ctDir: 255, reg: REG_1 };
    const text = `ct state ${bang(negate)}${states.join(',')}`;
    // nft's flag matching: "any of these bits" is & mask != 0; the negation compares the value itself.
    if (negate) return this.push(text, load, { type: 'cmp', sreg: REG_1, op: CMP_OP.neq, data: hostU32(bits) });
    return this.push(text, load,
      { type: 'bitwise', sreg: REG_1, dreg: REG_1, len: 4, mask: hostU32(bits), xor: hostU32(0) },
      { type: 'cmp', sreg: REG_1, op: CMP_OP.neq, data: hostU32(0) });
  }

  ctStatusDnat(): this {
    return this.push('ct status dnat',
      { type: 'ct', set: false, key: CT_KEY.status, ctDir: 255, reg: REG_1 },
      { type: 'bitwise', sreg: REG_1, dreg: REG_1, len: 4, mask: hostU32(CT_STATUS_DNAT), xor: hostU32(0) },
      { type: 'cmp', sreg: REG_1, op: CMP_OP.neq, data: hostU32(0) });
  }

  /** Not a connection's first packet (conntrack confirmed it), and no DNAT: a null NAT binding. */
  ctStatusConfirmedNotDnat(): this {
    return this.push('ct status & (confirmed | dnat) == confirmed',
      { type: 'ct', set: false, key: CT_KEY.status, ctDir: 255, reg: REG_1 },
      { type: 'bitwise', sreg: REG_1, dreg: REG_1, len: 4, mask: hostU32(CT_STATUS_CONFIRMED | CT_STATUS_DNAT), xor: hostU32(0) },
      { type: 'cmp', sreg: REG_1, op: CMP_OP.eq, data: hostU32(CT_STATUS_CONFIRMED) });
  }

  private ifnameMatch(key: number, word: string, name: string, prefix: boolean, negate?: boolean): this {
    const arg = prefix ? 'prefix' : 'name';
    const bytes = Buffer.from(checkIfname(name, arg));
    const data = prefix ? Uint8Array.from(bytes) : new Uint8Array(16);
    if (!prefix) data.set(bytes);
    return this.push(`${word} ${bang(negate)}"${name}${prefix ? '*' : ''}"`,
      { type: 'meta', set: false, key, reg: REG_1 },
      { type: 'cmp', sreg: REG_1, op: cmpOp(negate), data });
  }

  iifname(name: string, negate?: boolean): this { return this.ifnameMatch(META.iifname, 'iifname', name, false, negate); }
  iifnamePrefix(prefix: string, negate?: boolean): this { return this.ifnameMatch(META.iifname, 'iifname', prefix, true, negate); }
  oifname(name: string, negate?: boolean): this { return this.ifnameMatch(META.oifname, 'oifname', name, false, negate); }
  oifnamePrefix(prefix: string, negate?: boolean): this { return this.ifnameMatch(META.oifname, 'oifname', prefix, true, negate); }

  markAnd(mask: number, value: number, negate?: boolean): this {
    checkU32(mask, 'mask');
    checkU32(value, 'value');
    if (mask === 0 || mask === 0xffffffff) throw new RangeError(`mask: ${hex(mask)} is not a partial mask (nft would rewrite the match)`);
    if ((value & ~mask) >>> 0) throw new RangeError(`value: ${hex(value)} has bits outside mask ${hex(mask)}`);
    return this.push(`meta mark & ${hex(mask)} ${negate ? '!=' : '=='} ${hex(value)}`,
      { type: 'meta', set: false, key: META.mark, reg: REG_1 },
      { type: 'bitwise', sreg: REG_1, dreg: REG_1, len: 4, mask: hostU32(mask), xor: hostU32(0) },
      { type: 'cmp', sreg: REG_1, op: cmpOp(negate), data: hostU32(value) });
  }

  private markSet(op: 'or' | 'xor', bits: number): this {
    checkU32(bits, 'bits');
    if (bits === 0) throw new RangeError('bits: must not be 0');
    const mask = op === 'or' ? ~bits >>> 0 : 0xffffffff;
    return this.push(`meta mark set meta mark ${op} ${hex(bits)}`,
      { type: 'meta', set: false, key: META.mark, reg: REG_1 },
      { type: 'bitwise', sreg: REG_1, dreg: REG_1, len: 4, mask: hostU32(mask), xor: hostU32(bits) },
      { type: 'meta', set: true, key: META.mark, reg: REG_1 });
  }

  markOr(bits: number): this { return this.markSet('or', bits); }
  markXor(bits: number): this { return this.markSet('xor', bits); }

  /** Loads key parts into consecutive register words, one word-aligned field each, as nft does. */
  private loadKey(parts: KeyExpr[], arg: string, allow: KeyAllows, startWord = 0): Loaded {
    if (this.built || this.ended) return this.push(arg) as never; // throws the builder's state error
    if (Array.isArray(parts) && hasCtPort(parts) && !this.l4) {
      throw new RangeError(`${arg}: a conntrack port needs l4proto() earlier in the rule (nft types it by the protocol)`);
    }
    // A part that fails must not leave the inet version recorded without its dependency emitted.
    const ipv = this.ipv;
    try {
      const net = { family: this.family, familyVersion: (a: string) => this.familyVersion(a), netVersion: (v: IpVersion, a: string) => this.netVersion(v, a) };
      return loadKeyParts(net, parts, arg, allow, startWord);
    } catch (e) {
      this.ipv = ipv;
      throw e;
    }
  }

  /**
   * `<key> @set`. A constant part is loaded as a typed expression that evaluates to it
   * (`ip daddr & 10.0.0.1 | 10.0.0.1`, `th dport & 80 | 80`: rule-key.ts KeyAllows),
   * so that nft 1.0.6 and 1.1.x list the rule legibly and read it back; an immediate there would
   * list as `0x... [invalid type]`.
   */
  lookup(parts: KeyExpr[], set: string, negate?: boolean): this {
    checkSetName(set, 'set'); // before loadKey: a refused call must not change the builder
    const k = this.loadKey(parts, 'parts', MATCH_KEY);
    this.setRefs.push({ set, key: k.key, use: 'lookup', arg: 'set' });
    return this.push(`${k.text} ${bang(negate)}@${set}`, ...k.exprs,
      { type: 'lookup', sreg: REG_1, set, invert: !!negate });
  }

  vmap(parts: KeyExpr[], map: string): this {
    checkSetName(map, 'map');
    const k = this.loadKey(parts, 'parts', MAP_KEY);
    this.setRefs.push({ set: map, key: k.key, use: 'vmap', arg: 'map' });
    this.push(`${k.text} vmap @${map}`, ...k.exprs, { type: 'lookup', sreg: REG_1, set: map, dreg: REG_VERDICT, invert: false });
    this.ended = 'vmap';
    return this;
  }

  /**
   * dnat ip|ip6 to <key> map @map: the map's data (address, or address . port) is looked up into
   * NFT_REG_1 onwards and NATed to. Whether the data has a port is the map's business: the
   * Transaction checks the map and drops the proto registers when it has none (natForMapData).
   */
  dnatMap(parts: KeyExpr[], map: string): this {
    checkSetName(map, 'map');
    const k = this.loadKey(parts, 'parts', MAP_KEY);
    const version = this.familyVersion('parts');
    const addr = version === 4 ? 'ipv4_addr' : 'ipv6_addr';
    this.setRefs.push({ set: map, key: k.key, use: 'dnatMap', arg: 'map', natAddr: addr });
    // nft's registers: the data starts at NFT_REG_1, its port in the word after the address.
    const portReg = registerForWord(wordAlign(NFT_TYPES[addr].len) / 4);
    this.push(`dnat ${ipWord(version)} to ${k.text} map @${map}`, ...k.exprs,
      { type: 'lookup', sreg: REG_1, set: map, dreg: REG_1, invert: false },
      { type: 'nat', natType: NAT_TYPE.dnat, family: FAMILY_CODE[ipWord(version)], regAddrMin: REG_1, regAddrMax: 0,
        regProtoMin: portReg, regProtoMax: 0, flags: 0, map });
    this.ended = 'dnat';
    return this;
  }

  numgenMod(mod: number, equals: number): this {
    checkU32(mod, 'mod');
    checkU32(equals, 'equals');
    if (mod < 1) throw new RangeError('mod: must be at least 1');
    if (equals >= mod) throw new RangeError(`equals: ${equals} can never match numgen mod ${mod}`);
    return this.push(`numgen random mod ${mod} == ${equals}`,
      { type: 'numgen', dreg: REG_1, mod, ngType: NUMGEN_RANDOM, offset: 0 },
      { type: 'cmp', sreg: REG_1, op: CMP_OP.eq, data: hostU32(equals) });
  }

  counter(): this {
    return this.push('counter', { type: 'counter' });
  }

  /**
   * `update @set { <key> timeout Ns }`, or with `data`, `update @set { <key> timeout Ns : <data> }`
   * (a dynamic data map): the value is loaded into the registers after the key's, as nft does.
   */
  dynsetUpdate(parts: KeyExpr[], set: string, timeoutSeconds: number, data?: KeyExpr[]): this {
    checkSetName(set, 'set');
    checkTimeoutSeconds(timeoutSeconds, 'timeoutSeconds');
    const k = this.loadKey(parts, 'parts', DYNSET_KEY);
    const v = data === undefined ? undefined : this.loadKey(data, 'data', MAP_KEY, k.endWord);
    if (v && v.exprs.some((e) => e.type === 'numgen')) throw new TypeError('data: numgen is not a value a set can store');
    this.setRefs.push({ set, key: k.key, use: 'dynset', arg: 'set', ...(v ? { data: v.key } : {}) });
    const text = `update @${set} { ${k.text} timeout ${timeoutSeconds}s${v ? ` : ${v.text}` : ''} }`;
    return this.push(text, ...k.exprs, ...(v?.exprs ?? []),
      { type: 'dynset', op: DYNSET_OP.update, set, sregKey: REG_1, sregData: v ? registerForWord(k.endWord) : 0, timeoutMs: timeoutSeconds * 1000, flags: 0 });
  }


  private nat(kind: 'snat' | 'dnat', addr: string, port?: number): this {
    const want = this.family === 'ip' ? 4 : this.family === 'ip6' ? 6 : undefined;
    const { version, bytes } = parseIp(addr, 'addr', want);
    const exprs: Expr[] = [{ type: 'immediate', dreg: REG_1, data: bytes }];
    let target = version === 4 ? addr : `[${addr}]`;
    if (port !== undefined) {
      const p = checkPort(port, 'port');
      if (!this.l4) throw new RangeError(`port: ${kind} to a port needs l4proto() earlier in the rule`);
      exprs.push({ type: 'immediate', dreg: REG_2, data: [p >> 8, p & 0xff] });
      target += `:${p}`;
    } else if (version === 6) {
      target = addr;
    }
    exprs.push({
      type: 'nat', natType: NAT_TYPE[kind], family: FAMILY_CODE[ipWord(version)], regAddrMin: REG_1, regAddrMax: 0,
      regProtoMin: port === undefined ? 0 : REG_2, regProtoMax: 0, flags: port === undefined ? 0 : NAT_RANGE.protoSpecified,
    });
    const fam = this.family === 'inet' ? ` ${ipWord(version)}` : '';
    this.push(`${kind}${fam} to ${target}`, ...exprs);
    this.ended = kind;
    return this;
  }

  dnat(addr: string, port?: number): this { return this.nat('dnat', addr, port); }
  snat(addr: string, port?: number): this { return this.nat('snat', addr, port); }

  masquerade(fullyRandom?: boolean): this {
    this.push(fullyRandom ? 'masquerade fully-random' : 'masquerade',
      { type: 'masq', flags: fullyRandom ? NAT_RANGE.protoRandomFully : 0, regProtoMin: 0, regProtoMax: 0 });
    this.ended = 'masquerade';
    return this;
  }

  reject(kind: 'icmp' | 'tcp-reset' = 'icmp'): this {
    if (kind === 'tcp-reset') {
      if (this.l4 && this.l4 !== 'tcp') throw new RangeError(`kind: tcp-reset in a rule that matches ${this.l4}`);
      if (!this.l4) this.l4proto('tcp');
      this.push('reject with tcp reset', { type: 'reject', rejectType: REJECT_TYPE.tcpRst, code: 0 });
    } else if (kind === 'icmp') {
      // An inet rule that already matched one IP version gets that version's icmp, as with nft.
      const v = this.family === 'ip' ? 4 : this.family === 'ip6' ? 6 : this.ipv;
      const [rejectType, code] = v === 4 ? [REJECT_TYPE.icmpUnreach, ICMP_PORT_UNREACH]
        : v === 6 ? [REJECT_TYPE.icmpUnreach, ICMPV6_PORT_UNREACH]
          : [REJECT_TYPE.icmpxUnreach, ICMPX_PORT_UNREACH];
      this.push('reject', { type: 'reject', rejectType, code });
    } else {
      throw new TypeError(`kind: expected 'icmp' or 'tcp-reset', got '${String(kind)}'`);
    }
    this.ended = 'reject';
    return this;
  }

  notrack(): this {
    return this.push('notrack', { type: 'notrack' });
  }

  verdict(v: Verdict): this {
    checkVerdict(v, 'v');
    const chain = v.kind === 'jump' || v.kind === 'goto' ? v.chain : '';
    this.push(verdictText(v), { type: 'verdict', code: VERDICT_CODE[v.kind], chain });
    this.ended = v.kind;
    return this;
  }

  jump(chain: string): this { return this.verdict({ kind: 'jump', chain: checkName(chain, 'chain') }); }
  goto(chain: string): this { return this.verdict({ kind: 'goto', chain: checkName(chain, 'chain') }); }

  comment(text: string): this {
    if (typeof text !== 'string') throw new TypeError('text: expected a string');
    if (text.length === 0 || Buffer.byteLength(text) > MAX_COMMENT || /["\x00-\x1f]/.test(text)) {
      throw new RangeError(`text: a comment is 1..${MAX_COMMENT} bytes without quotes or control characters`);
    }
    if (this.commentText !== undefined) throw new RangeError('text: the rule already has a comment');
    if (this.built) throw new RangeError('text: this builder already built its rule; start a new rule()');
    this.commentText = text;
    return this;
  }

  build(): Rule {
    if (this.built) throw new RangeError('build: this builder already built its rule; start a new rule()');
    if (this.exprs.length === 0) throw new RangeError('build: a rule needs at least one match or statement');
    let userdata: Uint8Array | undefined;
    let text = this.texts.join(' ');
    if (this.commentText !== undefined) {
      const b = Buffer.from(this.commentText);
      userdata = new Uint8Array(b.length + 3);
      userdata[0] = UDATA_RULE_COMMENT;
      userdata[1] = b.length + 1;
      userdata.set(b, 2);
      text += ` comment "${this.commentText}"`;
    }
    this.built = true;
    return new Rule(this.family, text, this.exprs, this.setRefs, this.commentText, userdata);
  }
}

export function rule(family: RuleFamily): RuleBuilder {
  return new RuleBuilder(family);
}
