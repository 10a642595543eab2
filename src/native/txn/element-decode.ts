// Elements of a set without intervals, read back from the wire buffer (the inverse of
// writePlainElements). An op written from an ElementBatch keeps no element objects; its record
// decodes them from the buffer only when someone asks (an error's description, toNftScript, the
// fake kernel). Values come back in canonical form: addresses as Node prints them, protocols by
// name, ports and integers as numbers.
import type { Element, KeyPart } from './elements';
import { keyLength, L4PROTO_BY_CODE, NftType, VERDICT_CODE, Verdict, wordAlign } from './nft-types';
import { mapData, SetSpec } from './set-spec';

const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const VERDICT_BY_CODE = new Map<number, Verdict['kind']>(
  Object.entries(VERDICT_CODE).filter(([k]) => k !== 'break').map(([k, v]) => [v, k as Verdict['kind']]));

/** RFC 5952 text: lower-case groups without leading zeros, the longest run of two or more zero groups as `::`. */
export function ipv6Text(b: Uint8Array, at: number): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[at + i] << 8) | b[at + i + 1]);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j === i ? i + 1 : j;
  }
  const hex = (g: number[]) => g.map((x) => x.toString(16)).join(':');
  return best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

function readPart(t: NftType, b: Buffer, at: number): KeyPart {
  switch (t) {
    case 'ipv4_addr': return `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
    case 'ipv6_addr': return ipv6Text(b, at);
    case 'inet_proto': return L4PROTO_BY_CODE[b[at]] ?? b[at];
    case 'inet_service': return b.readUInt16BE(at);
    case 'mark':
    case 'integer': return HOST_LE ? b.readUInt32LE(at) : b.readUInt32BE(at);
    case 'ifname': {
      const end = b.indexOf(0, at);
      return b.toString('utf8', at, end < 0 || end > at + 16 ? at + 16 : end);
    }
    default: throw new TypeError(`'${t}' cannot be a key type`);
  }
}

/** The values of a key or data laid out as the kernel holds them (a concatenation's fields each on a word), from `at`. */
function partsAt(b: Buffer, at: number, types: readonly NftType[]): KeyPart[] {
  const parts: KeyPart[] = [];
  let p = at;
  for (const t of types) {
    parts.push(readPart(t, b, p));
    const n = t === 'ipv4_addr' || t === 'mark' || t === 'integer' ? 4 : t === 'ipv6_addr' || t === 'ifname' ? 16 : t === 'inet_proto' ? 1 : 2;
    p += types.length > 1 ? wordAlign(n) : n;
  }
  return parts;
}

/** Reads a u16 length and the values of a key or data; returns the values and the position after them. */
function readParts(b: Buffer, at: number, types: readonly NftType[]): [KeyPart[], number] {
  const len = b.readUInt16LE(at);
  return [partsAt(b, at + 2, types), at + 2 + len];
}

/**
 * A key or data value as a table dump returns it (Nft.dumpTable: the kernel's NFTA_DATA_VALUE bytes),
 * in canonical form. Throws a RangeError naming the lengths when the bytes do not hold `types`.
 */
export function decodeValue(types: readonly NftType[], bytes: Buffer): KeyPart[] {
  if (types.length === 0 || types.includes('verdict')) throw new RangeError(`'${types.join(' . ')}' is not a list of value types`);
  const need = keyLength(types);
  if (bytes.length !== need) {
    throw new RangeError(`a value of ${bytes.length} bytes does not hold ${types.join(' . ') || 'nothing'} (${need} bytes)`);
  }
  return partsAt(bytes, 0, types);
}

function readVerdict(b: Buffer, at: number): [Verdict, number] {
  const kind = VERDICT_BY_CODE.get(b.readInt32LE(at));
  if (!kind) throw new RangeError(`verdict code ${b.readInt32LE(at)} in an encoded element`);
  const len = b.readUInt16LE(at + 4);
  const chain = b.toString('utf8', at + 6, at + 6 + len);
  return [kind === 'jump' || kind === 'goto' ? { kind, chain } : { kind }, at + 6 + len];
}

/** `count` elements written by writePlainElements at `at` in `b`. */
export function decodePlainElements(spec: SetSpec, b: Buffer, at: number, count: number): Element[] {
  const out: Element[] = [];
  const dataTypes = mapData(spec);
  let p = at;
  for (let i = 0; i < count; i++) {
    const [key, afterKey] = readParts(b, p, spec.key);
    p = afterKey + 2 + 4; // no key end, flags 0
    const el: Element = { key };
    const kind = b[p++];
    if (kind === 1) [el.verdict, p] = readVerdict(b, p);
    else if (kind === 2) [el.data, p] = readParts(b, p, dataTypes ?? []);
    const timeoutMs = b.readUInt32LE(p) + b.readUInt32LE(p + 4) * 0x100000000;
    if (timeoutMs > 0) el.timeoutSeconds = timeoutMs / 1000;
    p += 8;
    out.push(el);
  }
  return out;
}

/** decodeValue, or undefined when the bytes do not hold `types` (the set is not what the caller thinks). */
export function tryDecodeValue(types: readonly NftType[], bytes: Buffer): KeyPart[] | undefined {
  try {
    return decodeValue(types, bytes);
  } catch {
    return undefined;
  }
}

/** The prefix length when [first, last] is one CIDR block (same leading bits, then all 0 / all 1), else -1. */
function prefixOf(first: Uint8Array, last: Uint8Array): number {
  let bits = 0;
  while (bits < first.length * 8 && bitAt(first, bits) === bitAt(last, bits)) bits++;
  for (let i = bits; i < first.length * 8; i++) if (bitAt(first, i) !== 0 || bitAt(last, i) !== 1) return -1;
  return bits;
}

const bitAt = (b: Uint8Array, i: number): number => (b[i >> 3] >> (7 - (i & 7))) & 1;

/**
 * A concatenated interval set's element (key and key end, as the kernel holds it) as key parts:
 * a field whose start and end differ is an address block `a/len` (nft's text), or `a-b` when it is
 * not one block. Throws a RangeError when the bytes do not hold `types`.
 */
export function decodeRange(types: readonly NftType[], first: Buffer, last: Buffer): KeyPart[] {
  const lo = decodeValue(types, first);
  const hi = decodeValue(types, last);
  let at = 0;
  return types.map((t, i) => {
    const n = keyLength([t]);
    const f = first.subarray(at, at + n);
    const l = last.subarray(at, at + n);
    at += types.length > 1 ? wordAlign(n) : n;
    if (lo[i] === hi[i]) return lo[i];
    const len = t === 'ipv4_addr' || t === 'ipv6_addr' ? prefixOf(f, l) : -1;
    return len < 0 ? `${lo[i]}-${hi[i]}` : `${lo[i]}/${len}`;
  });
}
