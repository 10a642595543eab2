// ConntrackFilter (src/native, beside the addon call it is for) as text.
import type { ConntrackFilter } from '../native';

/** A stable text form, for de-duplication and logs. */
export function filterKey(f: ConntrackFilter): string {
  const dnat = f.dnat === undefined ? '*' : f.dnat ? 'dnat' : 'no-dnat';
  return [f.family, f.protocol, f.origDst ?? '*', f.origDstPort ?? '*', f.replySrc ?? '*', f.replySrcPort ?? '*', dnat].join(' ');
}
