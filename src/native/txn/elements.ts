// Element keys: from API values ('10.0.0.1', 'tcp', 80, '10.0.0.0/8') to the bytes the kernel
// stores, and interval sets expanded into start / INTERVAL_END elements the way nft's userspace
// does it (src/intervals.c), so both tools see the same set contents.
import { cidrLast, parseCidr, parseIp } from '../wire/addresses';
import { checkIfname, scriptName as scriptChain } from './names';
import { ByteWriter } from '../wire/byte-writer';
import { keyLength, L4PROTO_BY_CODE, L4PROTO_CODE, NftType, SET_ELEM_INTERVAL_END, VERDICT_CODE, Verdict, wordAlign } from './nft-types';
import { Bytes } from './expressions';
import { EncodedElement } from './serialize';
import { checkTimeoutSeconds, mapData, SetSpec } from './set-spec';
import { checkVerdict } from './verdicts';

export type KeyPart = string | number;
/** `data`: one value per data type of a data map, encoded like key parts. */
export interface Element { key: KeyPart[]; verdict?: Verdict; data?: KeyPart[]; timeoutSeconds?: number }

const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Writes a 32-bit value in host byte order (meta mark, ct state: nft compares them as host integers). */
export function hostU32(v: number): number[] {
  const b = [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];
  return HOST_LE ? b : b.reverse();
}

export function checkU32(v: unknown, arg: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${arg}: expected an integer`);
  if (v < 0 || v > 0xffffffff) throw new RangeError(`${arg}: ${v} is outside 0..0xffffffff`);
  return v;
}

export function checkPort(v: unknown, arg: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${arg}: expected an integer port number, got ${JSON.stringify(v)}`);
  if (v < 0 || v > 65535) throw new RangeError(`${arg}: port ${v} is outside 0..65535`);
  return v;
}

export function protoNumber(v: unknown, arg: string): number {
  if (typeof v === 'string' && Object.prototype.hasOwnProperty.call(L4PROTO_CODE, v)) return L4PROTO_CODE[v as 'tcp'];
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 255) return v;
  throw new RangeError(`${arg}: '${String(v)}' is not a protocol ('tcp', 'udp', 'sctp' or 0..255)`);
}

/** One key part as a [first, last] pair of unpadded values (equal unless a CIDR in an interval set). */
function encodePart(t: NftType, v: KeyPart, interval: boolean, arg: string): [Bytes, Bytes] {
  switch (t) {
    case 'ipv4_addr':
    case 'ipv6_addr': {
      const version = t === 'ipv4_addr' ? 4 : 6;
      if (!interval) {
        const b = parseIp(v, arg, version).bytes;
        return [b, b];
      }
      const c = parseCidr(v, arg, version);
      return [c.bytes, cidrLast(c)];
    }
    case 'inet_proto': {
      const b = [protoNumber(v, arg)];
      return [b, b];
    }
    case 'inet_service': {
      const p = checkPort(v, arg);
      const b = [p >> 8, p & 0xff];
      return [b, b];
    }
    case 'mark':
    case 'integer': {
      const b = hostU32(checkU32(v, arg));
      return [b, b];
    }
    case 'ifname': {
      const b = new Uint8Array(16);
      b.set(Buffer.from(checkIfname(v, arg)));
      return [b, b];
    }
    default:
      throw new TypeError(`${arg}: '${t}' cannot be a key type`);
  }
}

function concat(parts: Bytes[], pad: boolean): Bytes {
  if (!pad) return parts[0];
  let len = 0;
  for (const p of parts) len += wordAlign(p.length);
  const out = new Uint8Array(len);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += wordAlign(p.length);
  }
  return out;
}

function encodeVerdict(v: Verdict): { code: number; chain: string } {
  return { code: VERDICT_CODE[v.kind], chain: v.kind === 'jump' || v.kind === 'goto' ? v.chain : '' };
}

interface KeyRange { first: Bytes; last: Bytes; data?: Bytes; el: Element; index: number }

/** A verdict exactly for verdict maps; data for data maps (optional when deleting: only the key counts). */
function checkElementValue(spec: SetSpec, el: Element, arg: string, add: boolean): Bytes | undefined {
  const verdictMap = spec.map === 'verdict';
  const kind = verdictMap ? 'a verdict map' : spec.map ? 'a data map' : 'not a map';
  if (verdictMap && !el.verdict) throw new TypeError(`${arg}.verdict: map '${spec.name}' needs a verdict for every element`);
  if (!verdictMap && el.verdict !== undefined) throw new TypeError(`${arg}.verdict: set '${spec.name}' is ${kind}`);
  if (el.verdict) checkVerdict(el.verdict, `${arg}.verdict`);
  const types = mapData(spec);
  if (!types) {
    if (el.data !== undefined) throw new TypeError(`${arg}.data: set '${spec.name}' is ${kind}`);
    return undefined;
  }
  if (el.data === undefined && !add) return undefined;
  if (!Array.isArray(el.data)) throw new TypeError(`${arg}.data: map '${spec.name}' needs an array of data parts (${types.join(' . ')}) for every element`);
  if (el.data.length !== types.length) {
    throw new RangeError(`${arg}.data: map '${spec.name}' has ${types.length} data part(s) (${types.join(' . ')}), got ${el.data.length}`);
  }
  const parts = types.map((t, i) => encodePart(t, el.data![i], false, `${arg}.data[${i}]`)[0]);
  return add ? concat(parts, types.length > 1) : undefined;
}

function checkElement(spec: SetSpec, el: Element, arg: string, add: boolean): KeyRange {
  if (typeof el !== 'object' || el === null || !Array.isArray(el.key)) throw new TypeError(`${arg}.key: expected an array of key parts`);
  if (el.key.length !== spec.key.length) {
    throw new RangeError(`${arg}.key: set '${spec.name}' has ${spec.key.length} key part(s) (${spec.key.join(' . ')}), got ${el.key.length}`);
  }
  const data = checkElementValue(spec, el, arg, add);
  if (el.timeoutSeconds !== undefined) {
    checkTimeoutSeconds(el.timeoutSeconds, `${arg}.timeoutSeconds`);
    if (!spec.timeout) throw new RangeError(`${arg}.timeoutSeconds: set '${spec.name}' has no timeout flag`);
  }
  const pad = spec.key.length > 1;
  const firsts: Bytes[] = [];
  const lasts: Bytes[] = [];
  for (let i = 0; i < spec.key.length; i++) {
    const [f, l] = encodePart(spec.key[i], el.key[i], !!spec.interval, `${arg}.key[${i}]`);
    firsts.push(f);
    lasts.push(l);
  }
  return { first: concat(firsts, pad), last: concat(lasts, pad), data, el, index: 0 };
}

function compareBytes(a: Bytes, b: Bytes): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** value + 1 as a big-endian number of the same width, or undefined when it overflows. */
function successor(v: Bytes): Bytes | undefined {
  const out = Uint8Array.from(v);
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== 0xff) {
      out[i]++;
      return out;
    }
    out[i] = 0;
  }
  return undefined;
}

/** Writes one key part's bytes straight into the buffer (the fast path; names come from checkElement). */
function writePart(w: ByteWriter, t: NftType, v: KeyPart): number {
  switch (t) {
    case 'ipv4_addr':
    case 'ipv6_addr': {
      const b = parseIp(v, '', t === 'ipv4_addr' ? 4 : 6).bytes;
      w.bytes(b);
      return b.length;
    }
    case 'inet_proto':
      w.u8(protoNumber(v, ''));
      return 1;
    case 'inet_service': {
      const p = checkPort(v, '');
      w.u8(p >> 8);
      w.u8(p & 0xff);
      return 2;
    }
    default: {
      const [b] = encodePart(t, v, false, '');
      w.bytes(b);
      return b.length;
    }
  }
}

/** Writes the u16 length and the values of a key or data (a concatenation pads each part to a word). */
function writeParts(w: ByteWriter, types: readonly NftType[], values: readonly KeyPart[], len: number): void {
  w.u16(len);
  const pad = types.length > 1;
  for (let i = 0; i < types.length; i++) {
    const n = writePart(w, types[i], values[i]);
    if (pad) for (let k = n; k < wordAlign(n); k++) w.u8(0);
  }
}

/** The element's data kind and value; a data map's data is not sent with a delete (the key is enough). */
function writeValue(w: ByteWriter, el: Element, data: PlainData | undefined): void {
  if (el.verdict) {
    checkVerdict(el.verdict, '');
    w.u8(1);
    w.i32(VERDICT_CODE[el.verdict.kind]);
    w.str(el.verdict.kind === 'jump' || el.verdict.kind === 'goto' ? el.verdict.chain : '');
  } else if (data && el.data) {
    if (!Array.isArray(el.data) || el.data.length !== data.types.length) throw new Error('slow path');
    if (!data.add) throw new Error('slow path'); // only validated, by checkElement
    w.u8(2);
    writeParts(w, data.types, el.data, data.len);
  } else {
    if (data?.add) throw new Error('slow path');
    w.u8(0);
  }
}

interface PlainData { types: NftType[]; len: number; add: boolean }

function writePlainElement(w: ByteWriter, spec: SetSpec, el: Element, keyLen: number, data: PlainData | undefined): void {
  if (!Array.isArray(el?.key) || el.key.length !== spec.key.length || (spec.map === 'verdict') !== !!el.verdict) throw new Error('slow path');
  if ((el.timeoutSeconds !== undefined && !spec.timeout) || (el.data !== undefined && !data)) throw new Error('slow path');
  if (el.timeoutSeconds !== undefined) checkTimeoutSeconds(el.timeoutSeconds, '');
  writeParts(w, spec.key, el.key, keyLen);
  w.u16(0);
  w.u32(0);
  writeValue(w, el, data);
  w.u64((el.timeoutSeconds ?? 0) * 1000);
}

/** Writes one element of a set without intervals; on a bad element the error names `${arg}[${index}]`. */
export type PlainElementWriter = (w: ByteWriter, el: Element, arg: string, index: number) => void;

/**
 * The writer of elements of one set without intervals, straight into the buffer: no per-element
 * objects, since these lists run to hundreds of thousands. On any bad element (and for data given
 * to a delete, which is only validated), checkElement produces the error with the argument's name;
 * the buffer is left as it was before the element.
 */
export function plainElementWriter(spec: SetSpec, add: boolean): PlainElementWriter {
  const keyLen = keyLength(spec.key);
  const types = mapData(spec);
  const data = types && { types, len: keyLength(types), add };
  return (w, el, arg, index) => {
    const at = w.length;
    try {
      writePlainElement(w, spec, el, keyLen, data);
    } catch (e) {
      w.truncate(at);
      checkElement(spec, el, `${arg}[${index}]`, add);
      if (add || el?.data === undefined) throw e;
      writePlainElement(w, spec, { ...el, data: undefined }, keyLen, data); // a delete's data was valid: write the element without it
    }
  };
}

export function writePlainElements(w: ByteWriter, spec: SetSpec, elements: Element[], arg: string, add: boolean): void {
  const write = plainElementWriter(spec, add);
  for (let i = 0; i < elements.length; i++) write(w, elements[i], arg, i);
}

export interface EncodeOptions {
  /** Adding to a set created in the same transaction: nft then also sends the "before the first
   *  range" end element at key 0 (segtree_needs_first_segment). */
  firstAdd: boolean;
  /** An add (a data map's elements need their data) rather than a delete (the key is enough). */
  add: boolean;
}

/**
 * Encodes elements for an ADD_ELEMS/DEL_ELEMS op. Plain and concatenated-interval sets give one
 * element per input; single-field interval sets give a start element and, unless the range ends at
 * the top of the key space, an INTERVAL_END element one past its last value.
 */
export function encodeElements(spec: SetSpec, elements: Element[], arg: string, opts: EncodeOptions): EncodedElement[] {
  if (!Array.isArray(elements)) throw new TypeError(`${arg}: expected an array of elements`);
  const ranges = elements.map((el, i) => ({ ...checkElement(spec, el, `${arg}[${i}]`, opts.add), index: i }));
  const timeoutOf = (el: Element) => (el.timeoutSeconds ?? 0) * 1000;
  const verdictOf = (el: Element) => (el.verdict ? encodeVerdict(el.verdict) : undefined);
  if (!spec.interval) {
    return ranges.map((r) => ({ key: r.first, flags: 0, verdict: verdictOf(r.el), data: r.data, timeoutMs: timeoutOf(r.el) }));
  }
  if (spec.key.length > 1) {
    return ranges.map((r) => ({ key: r.first, keyEnd: r.last, flags: 0, verdict: verdictOf(r.el), data: r.data, timeoutMs: timeoutOf(r.el) }));
  }
  ranges.sort((a, b) => compareBytes(a.first, b.first));
  for (let i = 1; i < ranges.length; i++) {
    if (compareBytes(ranges[i].first, ranges[i - 1].last) <= 0) {
      throw new RangeError(`${arg}[${ranges[i].index}]: '${ranges[i].el.key[0]}' overlaps '${ranges[i - 1].el.key[0]}' in interval set '${spec.name}'`);
    }
  }
  const out: EncodedElement[] = [];
  if (opts.firstAdd && ranges.length > 0 && Array.prototype.some.call(ranges[0].first, (b: number) => b !== 0)) {
    out.push({ key: new Uint8Array(ranges[0].first.length), flags: SET_ELEM_INTERVAL_END, timeoutMs: 0 });
  }
  for (const r of ranges) {
    out.push({ key: r.first, flags: 0, verdict: verdictOf(r.el), data: r.data, timeoutMs: timeoutOf(r.el) });
    const end = successor(r.last);
    if (end) out.push({ key: end, flags: SET_ELEM_INTERVAL_END, timeoutMs: 0 });
  }
  return out;
}

/** One key part as nft script text. */
function partText(t: NftType, v: KeyPart): string {
  if (t === 'inet_proto' && typeof v === 'number') return L4PROTO_BY_CODE[v] ?? String(v);
  if (t === 'ifname') return `"${v}"`;
  if (t === 'mark') return `0x${(v as number).toString(16)}`;
  return String(v);
}

export function verdictText(v: Verdict): string {
  return v.kind === 'jump' || v.kind === 'goto' ? `${v.kind} ${scriptChain(v.chain)}` : v.kind;
}

/** `withData`: false for deletes, which send a data map's key only. */
export function elementText(spec: SetSpec, el: Element, withData = true): string {
  let s = el.key.map((v, i) => partText(spec.key[i], v)).join(' . ');
  if (el.timeoutSeconds !== undefined) s += ` timeout ${el.timeoutSeconds}s`;
  if (el.verdict) s += ` : ${verdictText(el.verdict)}`;
  const types = withData && el.data ? mapData(spec) : undefined;
  if (types) s += ` : ${el.data!.map((v, i) => partText(types[i], v)).join(' . ')}`;
  return s;
}

/**
 * The key of one element as the kernel looks it up (errors name `${arg}`): in a set without
 * intervals the key itself; in a concatenated interval set the range's start, a point the kernel's
 * GETSETELEM answers with the element whose ranges hold it (pipapo), start and end. A single-field
 * interval set holds start and end elements apart: refused.
 */
export function encodeKey(spec: SetSpec, key: readonly KeyPart[], arg: string): Uint8Array {
  const ranges = !!spec.interval && spec.key.length > 1;
  if (spec.interval && !ranges) throw new RangeError(`${arg}: set '${spec.name}' has intervals; keys are looked up in sets without them or with concatenated keys`);
  if (!Array.isArray(key)) throw new TypeError(`${arg}: expected an array of key parts`);
  if (key.length !== spec.key.length) {
    throw new RangeError(`${arg}: set '${spec.name}' has ${spec.key.length} key part(s) (${spec.key.join(' . ')}), got ${key.length}`);
  }
  const parts = spec.key.map((t, i) => encodePart(t, key[i], ranges, `${arg}[${i}]`)[0]);
  return Uint8Array.from(concat(parts, parts.length > 1));
}
