// loadBalancerSourceRanges as the interval set needs them: host bits cleared (the API accepts
// them), nested ranges folded into the outer one (an interval set refuses overlaps), one family.
import { parseIp, prefixMask, type IpVersion } from '../../native/wire/addresses';

export interface Range { bytes: number[]; prefix: number; text: string }

function formatBytes(bytes: number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return groups.join(':');
}

/** `addr[/prefix]` of the given version with host bits cleared; null when it is not one. */
export function parseRange(text: string, version: IpVersion): Range | null {
  const s = text.trim();
  const slash = s.indexOf('/');
  const addr = slash < 0 ? s : s.slice(0, slash);
  let ip: { bytes: number[] };
  try { ip = parseIp(addr, 'range', version); } catch { return null; }
  const width = version === 4 ? 32 : 128;
  const p = slash < 0 ? String(width) : s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(p) || Number(p) > width) return null;
  const prefix = Number(p);
  const mask = prefixMask(ip.bytes.length, prefix);
  const bytes = ip.bytes.map((b, i) => b & mask[i]);
  return { bytes, prefix, text: `${formatBytes(bytes)}/${prefix}` };
}

export function rangeContains(outer: Range, addr: number[]): boolean {
  if (outer.bytes.length !== addr.length) return false;
  const mask = prefixMask(addr.length, outer.prefix);
  return addr.every((b, i) => (b & mask[i]) === outer.bytes[i]);
}

/** The ranges with duplicates and ranges inside another dropped, sorted by text. */
export function outermost(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a.prefix - b.prefix);
  const kept: Range[] = [];
  for (const r of sorted) if (!kept.some((k) => rangeContains(k, r.bytes))) kept.push(r);
  return kept.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
}
