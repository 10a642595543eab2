// Address helpers the compiler needs: validate literals before they reach the kernel, and test
// CIDR membership (loadBalancerSourceRanges that contain a node IP). Pure; uses node:net only to
// classify strings.
import { isIPv4, isIPv6 } from 'node:net';
import type { NftFamily } from './desired';

export function ipFamilyOf(ip: string): NftFamily | null {
  if (isIPv4(ip)) return 'ip';
  if (isIPv6(ip)) return 'ip6';
  return null;
}

export interface Cidr { family: NftFamily; addr: bigint; bits: number }

export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  const ip = slash < 0 ? text : text.slice(0, slash);
  const family = ipFamilyOf(ip);
  if (!family) return null;
  const width = family === 'ip' ? 32 : 128;
  const bitsText = slash < 0 ? String(width) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return null;
  const bits = Number(bitsText);
  if (bits > width) return null;
  return { family, addr: ipToBigInt(ip, family), bits };
}

function ipToBigInt(ip: string, family: NftFamily): bigint {
  if (family === 'ip') return ip.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
  const [head, tail = ''] = ip.includes('::') ? ip.split('::') : [ip, undefined as unknown as string];
  const words = (s: string | undefined): string[] => (s ? s.split(':') : []);
  let h = words(head);
  let t = ip.includes('::') ? words(tail) : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two words.
  const fixV4 = (list: string[]): string[] => {
    const last = list[list.length - 1];
    if (last && last.includes('.')) {
      const v = ipToBigInt(last, 'ip');
      return [...list.slice(0, -1), (v >> 16n).toString(16), (v & 0xffffn).toString(16)];
    }
    return list;
  };
  if (ip.includes('::')) { h = fixV4(h); t = fixV4(t); } else { h = fixV4(h); }
  const all = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return all.reduce((acc, w) => (acc << 16n) | BigInt(parseInt(w, 16)), 0n);
}

export function cidrContains(cidr: Cidr, ip: string): boolean {
  const family = ipFamilyOf(ip);
  if (family !== cidr.family) return false;
  const width = BigInt(family === 'ip' ? 32 : 128);
  const shift = width - BigInt(cidr.bits);
  return (ipToBigInt(ip, family) >> shift) === (cidr.addr >> shift);
}

/** The CIDR with host bits cleared, as nft prints it (nft refuses host bits in interval sets). */
export function normalizeCidr(text: string): string | null {
  const c = parseCidr(text);
  if (!c) return null;
  const width = c.family === 'ip' ? 32 : 128;
  const shift = BigInt(width - c.bits);
  const net = (c.addr >> shift) << shift;
  return `${bigIntToIp(net, c.family)}/${c.bits}`;
}

function bigIntToIp(v: bigint, family: NftFamily): string {
  if (family === 'ip') return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  const words: string[] = [];
  for (let i = 7; i >= 0; i--) words.push(((v >> BigInt(i * 16)) & 0xffffn).toString(16));
  // Compress the longest run of zero words, as the canonical form does.
  let best = -1; let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (words[i] !== '0') { i++; continue; }
    let j = i; while (j < 8 && words[j] === '0') j++;
    if (j - i > bestLen && j - i > 1) { best = i; bestLen = j - i; }
    i = j;
  }
  if (best < 0) return words.join(':');
  return `${words.slice(0, best).join(':')}::${words.slice(best + bestLen).join(':')}`;
}

/**
 * The CIDRs (or addresses) without duplicates and without those inside another, in their given
 * text, sorted: what an interval set can hold, since it refuses overlapping elements.
 */
export function outermostCidrs(texts: readonly string[]): string[] {
  const parsed = texts.map((text) => ({ text, c: parseCidr(text) })).filter((x): x is { text: string; c: Cidr } => x.c !== null);
  parsed.sort((a, b) => a.c.bits - b.c.bits || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const kept: { text: string; c: Cidr }[] = [];
  for (const x of parsed) if (!kept.some((k) => cidrCovers(k.c, x.c))) kept.push(x);
  return kept.map((k) => k.text).sort();
}

/** Whether `outer` holds every address of `inner`. */
function cidrCovers(outer: Cidr, inner: Cidr): boolean {
  if (outer.family !== inner.family || outer.bits > inner.bits) return false;
  const shift = BigInt((outer.family === 'ip' ? 32 : 128) - outer.bits);
  return (outer.addr >> shift) === (inner.addr >> shift);
}
