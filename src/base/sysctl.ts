// Writing sysctls the way upstream's EnsureSysctl does: read, write only when the value differs (or,
// for values the proxy only ever raises, when it is smaller), and report each outcome instead of
// throwing, so the caller decides which failures stop the proxy. /proc/sys/net is per network
// namespace: the values a process sees and writes are its own namespace's.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SysctlWrite {
  /** Path under the root, e.g. net/netfilter/nf_conntrack_max. */
  name: string;
  value: number;
  /** Write only when the current value is smaller. */
  raiseOnly: boolean;
  root: 'proc' | 'sys';
}

export type SysctlAction = 'set' | 'unchanged' | 'failed';

export interface SysctlOutcome {
  name: string;
  value: number;
  previous?: number;
  action: SysctlAction;
  error?: string;
}

export interface SysctlRoots {
  /** Default /proc/sys. */
  procRoot?: string;
  /** Default /sys. */
  sysRoot?: string;
}

/** A sysctl's text as one integer; undefined when it is anything else. Pure. */
export function parseSysctlInt(text: string): number | undefined {
  const t = text.trim();
  return /^-?\d+$/.test(t) ? Number.parseInt(t, 10) : undefined;
}

/** A file holding one integer (a sysctl, a module parameter); undefined when unreadable or not a number. */
export function readInt(file: string): number | undefined {
  try {
    return parseSysctlInt(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Applies one write; never throws for a value it cannot write. */
export function applySysctl(w: SysctlWrite, roots: SysctlRoots = {}): SysctlOutcome {
  const file = path.join(w.root === 'proc' ? roots.procRoot ?? '/proc/sys' : roots.sysRoot ?? '/sys', w.name);
  const previous = readInt(file);
  const base = { name: w.name, value: w.value, ...(previous === undefined ? {} : { previous }) };
  const needed = previous === undefined || (w.raiseOnly ? previous < w.value : previous !== w.value);
  if (!needed) return { ...base, action: 'unchanged' };
  try {
    fs.writeFileSync(file, `${w.value}\n`);
    return { ...base, action: 'set' };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return { ...base, action: 'failed', error: `cannot write ${file}: ${err.message}` };
  }
}
